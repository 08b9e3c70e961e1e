import { useEffect, useState } from 'react'
import logo from './assets/logo.svg'
import waves from './assets/waves.png'

// The app's client routes. jaws's SPA middleware in the example answers a
// fresh load of any of them with index.html.
const routes = {
  '/': { title: 'jaws + Vite', Page: Home },
  '/about': { title: 'About', Page: About },
}

// usePath follows the URL's path: links with data-route change it by
// pushState, and the back button by popstate.
function usePath() {
  const [path, setPath] = useState(location.pathname)
  useEffect(() => {
    const onPop = () => setPath(location.pathname)
    const onClick = (e) => {
      const a = e.target.closest('a[data-route]')
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey) return
      e.preventDefault()
      history.pushState(null, '', a.getAttribute('href'))
      setPath(location.pathname)
    }
    window.addEventListener('popstate', onPop)
    document.addEventListener('click', onClick)
    return () => {
      window.removeEventListener('popstate', onPop)
      document.removeEventListener('click', onClick)
    }
  }, [])
  return path
}

export default function App() {
  const path = usePath()
  const route = routes[path] ?? { title: 'Not found', Page: NotFound }
  useEffect(() => {
    document.title = route.title + ' · jaws + Vite'
  }, [route])
  return (
    <>
      <header className="top">
        <a href="/" data-route className="brand">
          <img src={logo} alt="jaws serves Vite" width="120" height="48" />
        </a>
        <nav>
          <a href="/" data-route>Home</a>
          <a href="/about" data-route>About</a>
          <a href="/guide/">Guide</a>
        </nav>
      </header>
      <main className="page">
        <h1>{route.title}</h1>
        <route.Page />
      </main>
    </>
  )
}

function Home() {
  const [features, setFeatures] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    fetch('/data/features.json')
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error('HTTP ' + r.status))))
      .then((data) => setFeatures(data.features))
      .catch((e) => setError(String(e)))
  }, [])
  return (
    <>
      <p className="lead">
        This React app was built by Vite and shipped <strong>compressed-only</strong>: its
        HTML, script, stylesheet, SVG and JSON exist in the binary only as <code>.br</code>,{' '}
        <code>.zst</code> and <code>.gz</code> files. jaws serves each under its own name.
      </p>
      <figure className="waves">
        <img id="waves" src={waves} alt="Waves, a PNG kept as it is" width="96" height="96" />
        <figcaption>A PNG compresses no further, so the build keeps it as it is.</figcaption>
      </figure>
      <h2>What jaws does here</h2>
      {error && <p id="features-error">Could not load the features: {error}</p>}
      {features === null && !error && <p className="muted">Loading&hellip;</p>}
      {features && (
        <ul id="features">
          {features.map((f) => (
            <li key={f.id}>
              <strong>{f.title}.</strong> {f.text}
            </li>
          ))}
        </ul>
      )}
    </>
  )
}

function About() {
  return (
    <p id="about">
      A client route: loaded fresh, the server answers it with <code>index.html</code>, which
      it has only as <code>index.html.br</code>, <code>.zst</code> and <code>.gz</code>.
    </p>
  )
}

function NotFound() {
  return (
    <p>
      No such page. <a href="/" data-route>Back home</a>.
    </p>
  )
}
