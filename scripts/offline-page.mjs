// Writes DIR/offset-window-offline.html: the built consumer page (DIR/index.html, first
// frame and style sheet included) as ONE file, for a classroom without a network: the
// icon, the JS glue and the wasm (base64) inlined, nothing fetched. Opened from disk
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
// The glue is an ES module (minified for release builds, scripts/finish-wasm.mjs): its
// export statement goes, and its default export (the init function) is called by name.
let glue = read(loader[1]).toString('utf8');
const exports = glue.match(/export\s*\{([^}]*)\};?/);
const init = exports && exports[1].match(/([\w$]+)\s+as\s+default\b/);
if (!init) throw new Error(`offline page: no default export in ${loader[1]}`);
glue = glue.replace(exports[0], '').replace(/<\/script/g, '<\\/script');
const wasm = read(wasmHref).toString('base64');
html = html.replace(loader[0], () => `<script type="module">
${glue}
const offlineBytes = Uint8Array.from(atob('${wasm}'), (c) => c.charCodeAt(0));
const offlineWasm = await ${init[1]}({ module_or_path: offlineBytes });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm: offlineWasm } }));
</script>`);
fs.writeFileSync(path.join(dir, 'offset-window-offline.html'), html);
console.log(`wrote ${dir}/offset-window-offline.html (${(html.length / 1024).toFixed(0)} KB, everything inlined)`);
