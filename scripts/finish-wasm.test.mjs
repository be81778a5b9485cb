// Tests the finishing step (scripts/finish-wasm.mjs) on a release dist/, as
// scripts/test-web.sh runs it after `trunk build --release`:
//   node scripts/finish-wasm.test.mjs DIST
// For every finished NAME_bg.wasm with its NAME.js: the glue's import object supplies every
// import of the wasm and none of wasm-bindgen's long names is left (the build's own check,
// run again on what was written); the wasm's imports and exports have the short names. The
// slide module, which needs no browser, is then run in node: its `slide` must give the SVG
// of the page at its defaults, and its panic report (which the panic entry points call
// before they trap) must throw the report; so is the import module (crates/import-page),
// whose `read_pasted` must read a Spring Boot file and refuse a bad value.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { REPORT_EXPORT, checkFinished } from './finish-wasm.mjs';

const dist = process.argv[2] ?? 'dist';
const pairs = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('_bg.wasm')) pairs.push([p, p.replace(/_bg\.wasm$/, '.js')]);
  }
})(dist);

test('every page, the slide module and the import module were finished', () => {
  const names = pairs.map(([w]) => path.basename(w).replace(/(-[0-9a-f]+)?_bg\.wasm$/, ''));
  for (const page of ['offset-window-app', 'offset-window-slide', 'offset-window-import-page', 'offset-window-producer', 'offset-window-group']) {
    assert.ok(names.includes(page), `${page} in ${names.join(', ')}`);
  }
});

for (const [wasmPath, jsPath] of pairs) {
  test(`${path.relative(dist, wasmPath)}: short names shared with its glue`, async () => {
    const wasm = fs.readFileSync(wasmPath);
    const module = new WebAssembly.Module(wasm);
    const imports = WebAssembly.Module.imports(module);
    const exports = WebAssembly.Module.exports(module).map((e) => e.name);
    assert.ok(imports.length > 0);
    for (const i of imports) {
      assert.equal(i.module, 'm', `${i.module}.${i.name}`);
      assert.match(i.name, /^[0-9a-z]{1,3}$/);
    }
    for (const e of exports) assert.match(e, /^e[0-9a-z]{1,3}$/);
    // The long names the build renamed: none is left in the glue, which links.
    const js = fs.readFileSync(jsPath, 'utf8');
    for (const long of [/__wbg_\w*_[0-9a-f]{16}\b/, /__wbindgen_\w+/, /wasm_bindgen__\w+/, new RegExp(`\\.${REPORT_EXPORT}\\b`)]) {
      assert.doesNotMatch(js, long, jsPath);
    }
    await checkFinished(jsPath, wasm, new Map());
  });
}

test('the finished slide module runs in node: the slide at the defaults, the panic report', async () => {
  const [wasmPath, jsPath] = pairs.find(([w]) => path.basename(w).startsWith('offset-window-slide'));
  const glue = await import(`data:text/javascript;base64,${fs.readFileSync(jsPath).toString('base64')}`);
  glue.initSync({ module: fs.readFileSync(wasmPath) });
  const svg = glue.slide('');
  assert.match(svg, /^<svg width="1920" height="1080"/);
  assert.ok(svg.length > 10_000, `${svg.length} characters`);
  assert.match(svg, /<\/svg>\s*$/);
  // What every panic entry point of the finished wasm calls before it traps.
  assert.throws(() => glue[REPORT_EXPORT](), /offset-window stopped on an internal error \(a Rust panic\)/);
});

test('the finished import module runs in node: a Spring Boot file read, a bad value refused, the panic report', async () => {
  const [wasmPath, jsPath] = pairs.find(([w]) => path.basename(w).startsWith('offset-window-import-page'));
  const glue = await import(`data:text/javascript;base64,${fs.readFileSync(jsPath).toString('base64')}`);
  glue.initSync({ module: fs.readFileSync(wasmPath) });
  const html = glue.read_pasted('consumer', 'spring:\n  kafka:\n    consumer:\n      max-poll-records: 500\n    listener:\n      ack-mode: record\n');
  assert.match(html, /data-strategy="commit_sync_record"/);
  assert.match(html, /data-key="max.poll.records" data-value="500"/);
  assert.match(html, /id="import-apply" class="button" href="#max.poll.records=500&amp;strategy=commit_sync_record/);
  const bad = glue.read_pasted('consumer', 'max.poll.records=lots\n');
  assert.match(bad, /role="alert" data-file="pasted.properties" data-line="1" data-property="max.poll.records"/);
  assert.throws(() => glue[REPORT_EXPORT](), /import module stopped on an internal error \(a Rust panic\)/);
});
