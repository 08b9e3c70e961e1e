import '@fontsource/inter/latin-400.css'
import './index.css'

// The guide page's script: it says it ran, and how the page came.
const [nav] = performance.getEntriesByType('navigation')
document.getElementById('guide-status').textContent =
  'Script ran; this page came ' + (nav && nav.encodedBodySize < nav.decodedBodySize ? 'compressed' : 'as it is') + '.'
