// The entry of the bundler fixture: a stylesheet with a font, images, a
// dynamically imported vendor file with dots in its name, and the generated
// pages (src/pages, written by regen.sh), one chunk each.
import './style.css';
import react from './assets/react.svg';
import logo from './assets/logo.min.svg';
import photo from './assets/photo-IMG_1234.jpg';
import { pages } from './pages/index.js';

const app = document.getElementById('app');
for (const src of [react, logo, photo]) {
  const img = document.createElement('img');
  img.src = src;
  app.append(img);
}
import('./vendor/jquery-3.7.1.min.js').then((m) => m.ready(app));
const name = location.hash.slice(1);
if (pages[name]) pages[name]().then((m) => m.render(app));
