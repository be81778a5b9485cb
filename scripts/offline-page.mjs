// Writes DIR/offset-window-offline.html: the built consumer page (DIR/index.html, first
// frame and style sheet included) as ONE file, for a classroom without a network: the
// icon, the JS glue and the wasm (base64) inlined, and the slide module's too (crates/slide,
// which the page otherwise fetches on its first export) and the presets' files
// (presets.json, fetched on the first preset chosen), nothing fetched. Opened from disk
// (file://) it runs as served. Usage: node scripts/offline-page.mjs DIR
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/offline-page.mjs DIR');
const read = (href) => fs.readFileSync(path.join(dir, href.replace(/^\.?\//, '')));
let html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
const must = (re, what) => {
  const m = html.match(re);
  if (!m) throw new Error(`offline page: no ${what} in ${dir}/index.html`);
  return m;
};
// No integrity checks or preloads: nothing is fetched.
html = html.replace(/<link rel="(modulepreload|preload)"[^>]*>/g, '');
// The style sheet is inlined already (index.html); a linked one would be inlined here.
const css = html.match(/<link rel="stylesheet" href="([^"]+)"[^>]*\/?>/);
if (css) html = html.replace(css[0], () => `<style>${read(css[1]).toString('utf8')}</style>`);
const icon = must(/<link rel="icon" href="([^"]+)"[^>]*\/?>/, 'icon');
html = html.replace(icon[0], () => `<link rel="icon" href="data:image/svg+xml;base64,${read(icon[1]).toString('base64')}">`);
// Trunk's loader imports the glue module and fetches the wasm; inline both instead.
const loader = must(/<script type="module">\s*import init, \* as bindings from '([^']+)';[\s\S]*?<\/script>/, 'wasm loader');
const wasmHref = must(/module_or_path: '([^']+)'/, 'wasm path')[1];
const [glue, names] = inlined(loader[1]);
html = html.replace(loader[0], () => `<script type="module">
${glue}
const offlineBytes = ${bytes(wasmHref)};
const offlineWasm = await ${names.default}({ module_or_path: offlineBytes });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm: offlineWasm } }));
</script>`);
// The slide module: `offsetWindowSlide()` (index.html) instantiates the inlined copy once.
const slideLoader = must(/<script>\s*window\.offsetWindowSlide = [\s\S]*?<\/script>/, 'slide module loader');
const [slideGlue, slideNames] = inlined('offset-window-slide.js');
if (!slideNames.slide) throw new Error('offline page: offset-window-slide.js exports no slide');
html = html.replace(slideLoader[0], () => `<script type="module">
${slideGlue}
const slideBytes = ${bytes('offset-window-slide_bg.wasm')};
let slideModule;
window.offsetWindowSlide = () => (slideModule ??= ${slideNames.default}({ module_or_path: slideBytes }).then(() => ({ slide: ${slideNames.slide} })));
</script>`);
// The presets' files, which the page fetches on the first preset chosen: inlined.
const presetsLoader = must(/<script>(?:\s*\/\/[^\n]*\n)*\s*window\.offsetWindowPresets = [\s\S]*?<\/script>/, 'presets loader');
const presetsText = JSON.stringify(read('presets.json').toString('utf8')).replace(/</g, '\\u003c');
html = html.replace(presetsLoader[0], () => `<script>window.offsetWindowPresets = () => Promise.resolve(${presetsText});</script>`);
fs.writeFileSync(path.join(dir, 'offset-window-offline.html'), html);
console.log(`wrote ${dir}/offset-window-offline.html (${(html.length / 1024).toFixed(0)} KB, everything inlined)`);

/** A JS expression for the bytes of file `href` (base64 inside). */
function bytes(href) {
  return `Uint8Array.from(atob('${read(href).toString('base64')}'), (c) => c.charCodeAt(0))`;
}

/** A wasm-bindgen glue module (minified for release builds, scripts/finish-wasm.mjs) made
 *  fit for an inline module script, and its exports' local names by exported name: the
 *  `export {…}` statement goes (`export function NAME` stays, valid in a module script). */
function inlined(href) {
  let glue = read(href).toString('utf8');
  const names = {};
  for (const m of glue.matchAll(/\bexport\s+(?:async\s+)?function\s+([\w$]+)/g)) names[m[1]] = m[1];
  const list = glue.match(/export\s*\{([^}]*)\};?/);
  for (const item of list ? list[1].split(',') : []) {
    const [local, exported = local] = item.trim().split(/\s+as\s+/);
    if (local) names[exported] = local;
  }
  if (!names.default) throw new Error(`offline page: no default export in ${href}`);
  if (list) glue = glue.replace(list[0], '');
  return [glue.replace(/<\/script/g, '<\\/script'), names];
}
