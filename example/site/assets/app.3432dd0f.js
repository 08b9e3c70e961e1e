// jaws demo: a single-page app with client-side routing.
//
// The server answers every route below with index.html (the jaws SPA
// middleware, for navigations whose path has no extension); this script then
// renders the page for location.pathname, and links marked data-route change
// the route with history.pushState instead of loading a new page.
"use strict";

const app = document.getElementById("app");

const routes = {
  "/": home,
  "/files": files,
  "/video": video,
  "/about": about,
};

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  el.append(...children);
  return el;
}

async function getJSON(url) {
  const res = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
  if (!res.ok) throw new Error(res.status + " " + res.statusText);
  return res.json();
}

// Pages ---------------------------------------------------------------------

function home() {
  const tbody = h("tbody", null, h("tr", null, h("td", { colspan: "3" }, "loading\u2026")));
  const requests = h("p", { class: "muted", id: "requests" });
  const clock = h("span", { id: "server-time" }, "\u2026");
  async function refresh() {
    try {
      const s = await getJSON("/debug/jaws");
      const row = (name, p) => h("tr", null, h("td", null, name), h("td", null, String(p.Responses)), h("td", null, String(p.Bytes)));
      tbody.replaceChildren(row("memory", s.Memory), row("zero-copy", s.ZeroCopy), row("fallback", s.Fallback));
      requests.textContent = s.Requests + " requests seen by the handler, " + s.CacheHits + " cache hits, " +
        s.Encoded + " responses sent compressed (" + s.Compressions + " compressed on the fly, once per file and coding; the rest precompressed or cached)";
      const t = await getJSON("/api/time");
      clock.textContent = t.time;
    } catch (err) {
      requests.textContent = "counters unavailable: " + err.message;
    }
  }
  refresh();
  const timer = setInterval(refresh, 2000);
  return {
    title: "Home",
    node: h("section", null,
      h("h1", null, "jaws demo"),
      h("p", null, "This page is a single-page app. Every file it loads comes from the jaws handler: ",
        "small ones from memory, large ones such as the video from the file. ",
        "Pick a page above; the address changes without a page load, and reloading any of them works, ",
        "because the server answers client routes with index.html."),
      h("p", null, "Server time: ", clock),
      h("h2", null, "Transfer paths"),
      h("table", { id: "stats" },
        h("thead", null, h("tr", null, h("th", null, "path"), h("th", null, "responses"), h("th", null, "bytes"))),
        tbody),
      requests),
    leave() { clearInterval(timer); },
  };
}

function files() {
  const tbody = h("tbody", null, h("tr", null, h("td", { colspan: "3" }, "loading\u2026")));
  getJSON("/api/files").then((list) => {
    tbody.replaceChildren(...list.map((f) => h("tr", null,
      h("td", null, h("a", { href: "/" + f.name }, f.name)),
      h("td", null, String(f.size)),
      h("td", null, h("code", null, f.cacheControl || "(none)")))));
  }).catch((err) => tbody.replaceChildren(h("tr", null, h("td", { colspan: "3" }, String(err)))));
  return {
    title: "Files",
    node: h("section", null,
      h("h1", null, "Files"),
      h("p", null, "The files of the served site (from ", h("code", null, "/api/files"), "), each at ",
        h("code", null, "/NAME"), ", with the Cache-Control the rules give it: fingerprinted names are immutable, HTML is revalidated."),
      h("table", { id: "files" },
        h("thead", null, h("tr", null, h("th", null, "name"), h("th", null, "bytes"), h("th", null, "Cache-Control"))),
        tbody)),
  };
}

function video() {
  const v = h("video", { id: "clip", src: "/assets/video.webm", controls: "", muted: "", playsinline: "", preload: "metadata", width: "320", height: "180" });
  v.muted = true;
  const status = h("p", { class: "muted", id: "video-status" }, "");
  const show = () => { status.textContent = "position " + v.currentTime.toFixed(2) + " s of " + (v.duration || 0).toFixed(2) + " s"; };
  for (const ev of ["loadedmetadata", "seeked", "timeupdate", "pause"]) v.addEventListener(ev, show);
  return {
    title: "Video",
    node: h("section", null,
      h("h1", null, "Video"),
      h("p", null, "A small WebM (VP9) clip. The browser asks for it with Range requests, ",
        "and jaws answers them with 206 Partial Content, so seeking works."),
      v, status),
    leave() { v.pause(); v.removeAttribute("src"); v.load(); },
  };
}

function about() {
  return {
    title: "About",
    node: h("section", null,
      h("h1", null, "About"),
      h("p", null, "jaws picks, per request, how to move a file's bytes: from memory for small files, ",
        "with the kernel's zero-copy transfer for large ones, and through the ResponseWriter elsewhere."),
      h("p", null, "This app serves its site at ", h("code", null, "/"), " on a chi router, laid out as a bundler's ",
        h("code", null, "dist/"), " is, as a single-page app whose unknown routes get index.html, ",
        "while missing assets such as ", h("a", { href: "/assets/missing.js" }, "/assets/missing.js"), " stay 404."),
      h("p", null, "That page links its stylesheet by a hashed name from the handler, such as ",
        h("code", null, "/assets/style.0123456789abcdef.css"), ", served immutable. A browser that kept the build before this script got this one as the difference (dcz).")),
  };
}

function notFound() {
  return {
    title: "Not found",
    node: h("section", null,
      h("h1", null, "Not found"),
      h("p", null, "No page at ", h("code", null, location.pathname), " in this app. ", h("a", { href: "/", "data-route": "" }, "Home"))),
  };
}

// Router --------------------------------------------------------------------

let current = null;

function render() {
  if (current && current.leave) current.leave();
  const page = (routes[location.pathname] || notFound)();
  current = page;
  document.title = page.title + " \u00b7 jaws demo";
  app.replaceChildren(page.node);
  for (const a of document.querySelectorAll("nav a[data-route]")) {
    a.toggleAttribute("aria-current", a.getAttribute("href") === location.pathname);
  }
}

function navigate(path) {
  if (path === location.pathname) return;
  history.pushState(null, "", path);
  render();
}

document.addEventListener("click", (e) => {
  const a = e.target.closest("a[data-route]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href"));
});

window.addEventListener("popstate", render);
render();
