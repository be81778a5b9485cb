// Finishes each page's wasm and its wasm-bindgen glue, release builds only (Trunk's own
// wasm-opt is off: data-wasm-opt="0" in the pages' HTML; scripts/trunk-post-build.sh runs
// this). For every NAME_bg.wasm under DIR with its NAME.js beside it:
//  1. panics become traps: the standard library's panic entry points (core::panicking::*,
//     Option/Result unwrap failures, slice and str index failures; each checked to never
//     return) get a body that reports "a Rust panic" to the console and traps. Their
//     callers then need no message formatting, which wasm-opt removes (std's
//     panic_immediate_abort does the same on nightly Rust; the Rust and WebAssembly book
//     shows it done with wasm-snip). A panic stops the page as before; only its message is
//     gone, which a debug build (trunk serve, no optimisation) still prints;
//  2. wasm-opt -Oz, with a flatten/rereloop round that shrinks it further (2 KB), and
//     without the producers and target-features sections;
//  3. the wasm's imports from the glue get short names ("0", "1", …; the module
//     "./NAME_bg.js" becomes "m"), and the glue's import object the same keys; its exports
//     too ("a", "b", …), and the glue's `wasm.NAME` the same: the long names wasm-bindgen
//     writes (__wbg_addEventListener_4d0db17c671ea324) end in hashes that no compressor
//     can shrink, and they appear in both files;
//  4. the glue is minified by terser (an ES module: its exports keep their names).
// The end-to-end tests and the budget check run against the result.
// Usage: node scripts/finish-wasm.mjs DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import binaryen from 'binaryen';
import { minify } from 'terser';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/finish-wasm.mjs DIR');
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const WASM_OPT = path.join(root, 'node_modules', '.bin', 'wasm-opt');
// A fresh instance's memory is zeros (so zero runs of the data need no bytes); the
// producers and target-features sections are for tools, not browsers.
const WASM_OPT_PASSES = [
  '--zero-filled-memory', '-Oz', '--flatten', '--rereloop', '-Oz', '-Oz', '-Oz', '--strip-producers', '--strip-target-features',
];

/** The standard library's panic entry points, by (demangled) name. */
const PANICS = [
  /^core(\[[0-9a-f]+\])?::panicking::/,
  /^core(\[[0-9a-f]+\])?::option::(unwrap_failed|expect_failed)$/,
  /^core(\[[0-9a-f]+\])?::result::unwrap_failed$/,
  /^core(\[[0-9a-f]+\])?::slice::index::slice_\w*fail$/,
  /^core(\[[0-9a-f]+\])?::str::slice_error_fail(_rt)?$/,
];
/** What the page says in the console when it stops on a panic. */
const PANIC_REPORT = 'offset-window stopped on an internal error (a Rust panic); ' +
  'a debug build of the page (trunk serve) reports its message and place.';
const REPORT_IMPORT = '__offset_window_panic';

/** Step 1: `wasm` (with its name section) with every panic entry point reporting and
 *  trapping. Returns the new bytes and how many functions it changed. */
function panicsToTraps(wasm, glueModule) {
  // The features are the module's own (its target_features section), so that binaryen
  // writes nothing a browser might not read.
  const m = binaryen.readBinary(wasm);
  const panics = [];
  for (let i = 0; i < m.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
    if (!info.body || !PANICS.some((re) => re.test(info.name))) continue;
    // Only a function that never returns: anything else would be a real change.
    if (binaryen.getExpressionType(info.body) !== binaryen.unreachable) {
      throw new Error(`${info.name} matches a panic entry point but can return`);
    }
    panics.push(info);
  }
  if (panics.length === 0) throw new Error('no panic entry point found (is the name section there?)');
  m.addFunctionImport(REPORT_IMPORT, glueModule, REPORT_IMPORT, binaryen.none, binaryen.none);
  for (const f of panics) {
    m.removeFunction(f.name);
    m.addFunction(f.name, f.params, f.results, [],
      m.block(null, [m.call(REPORT_IMPORT, [], binaryen.none), m.unreachable()], binaryen.unreachable));
  }
  if (!m.validate()) throw new Error('the module does not validate after turning panics into traps');
  binaryen.setDebugInfo(true);
  const out = Buffer.from(m.emitBinary());
  m.dispose();
  return [out, panics.length];
}

/** The one module the wasm imports the glue from ("./NAME_bg.js"). */
function glueModuleOf(wasm) {
  const modules = new Set();
  renameImports(wasm, (module, field) => {
    if (module.startsWith('./')) modules.add(module);
    return [module, field];
  });
  if (modules.size !== 1) throw new Error(`expected one glue module, found ${[...modules].join(', ')}`);
  return [...modules][0];
}

function* wasmFiles(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) yield* wasmFiles(p);
    else if (e.name.endsWith('_bg.wasm')) yield p;
  }
}

/** Rewrites the import section of `wasm`: `rename(module, name)` gives [module, name]. */
function renameImports(wasm, rename) {
  return rewriteNames(wasm, rename, null);
}

/** Rewrites the export section of `wasm`: `rename(name)` gives the new name. */
function renameExports(wasm, rename) {
  return rewriteNames(wasm, null, rename);
}

/** Rewrites the names of the import section (`imports(module, name)`) or of the export
 *  section (`exports(name)`) of `wasm`; the other sections are copied as they are. */
function rewriteNames(wasm, imports, exports) {
  let i = 8;
  const leb = () => {
    let r = 0;
    for (let s = 0; ; s += 7) {
      const x = wasm[i++];
      r += (x & 0x7f) * 2 ** s;
      if (x < 0x80) return r;
    }
  };
  const enc = (n) => {
    const o = [];
    do {
      let x = n % 128;
      n = Math.floor(n / 128);
      if (n) x |= 0x80;
      o.push(x);
    } while (n);
    return Buffer.from(o);
  };
  const str = (s) => {
    const t = Buffer.from(s, 'utf8');
    return Buffer.concat([enc(t.length), t]);
  };
  const name = () => {
    const n = leb();
    const s = wasm.subarray(i, i + n).toString('utf8');
    i += n;
    return s;
  };
  const valtype = () => {
    const t = wasm[i++];
    if (t === 0x63 || t === 0x64) leb(); // (ref null? heaptype)
  };
  const limits = () => {
    const flags = wasm[i++];
    leb();
    if (flags & 1) leb();
  };
  const out = [wasm.subarray(0, 8)];
  while (i < wasm.length) {
    const id = wasm[i++];
    const size = leb();
    const end = i + size;
    if (id === 7 && exports) {
      const count = leb();
      const parts = [enc(count)];
      for (let k = 0; k < count; k++) {
        const field = exports(name());
        const desc = i;
        i++; // kind
        leb(); // index
        parts.push(str(field), wasm.subarray(desc, i));
      }
      if (i !== end) throw new Error('export section misread');
      const body = Buffer.concat(parts);
      out.push(Buffer.from([7]), enc(body.length), body);
      continue;
    }
    if (id !== 2 || !imports) {
      out.push(Buffer.from([id]), enc(size), wasm.subarray(i, end));
      i = end;
      continue;
    }
    const count = leb();
    const parts = [enc(count)];
    for (let k = 0; k < count; k++) {
      const [module, field] = imports(name(), name());
      const desc = i;
      const kind = wasm[i++];
      if (kind === 0) leb(); // function: type index
      else if (kind === 1) { valtype(); limits(); } // table
      else if (kind === 2) limits(); // memory
      else if (kind === 3) { valtype(); i++; } // global: type, mutability
      else if (kind === 4) { i++; leb(); } // tag
      else throw new Error(`unknown import kind ${kind}`);
      parts.push(str(module), str(field), wasm.subarray(desc, i));
    }
    if (i !== end) throw new Error('import section misread');
    const body = Buffer.concat(parts);
    out.push(Buffer.from([2]), enc(body.length), body);
  }
  return Buffer.concat(out);
}

for (const wasmPath of wasmFiles(dir)) {
  const jsPath = wasmPath.replace(/_bg\.wasm$/, '.js');
  if (!fs.existsSync(jsPath)) continue;
  let js = fs.readFileSync(jsPath, 'utf8');
  const built = fs.readFileSync(wasmPath);
  const glueModule = glueModuleOf(built);
  // 1. Panics become traps (the glue gets the report function).
  const [trapping, snipped] = panicsToTraps(built, glueModule);
  const objectStart = 'const import0 = {\n        __proto__: null,\n';
  js = once(jsPath, js, objectStart,
    `${objectStart}        ${REPORT_IMPORT}: function() {\n            console.error(${JSON.stringify(PANIC_REPORT)});\n        },\n`);
  // 2. wasm-opt.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'finish-wasm-'));
  const [input, output] = [path.join(tmp, 'in.wasm'), path.join(tmp, 'out.wasm')];
  fs.writeFileSync(input, trapping);
  execFileSync(WASM_OPT, [...WASM_OPT_PASSES, input, '-o', output], { stdio: 'inherit' });
  const optimized = fs.readFileSync(output);
  fs.rmSync(tmp, { recursive: true });
  // 3. Short import names, in the wasm and in the glue's import object
  //    (`const import0 = { __proto__: null, NAME: function…, … }`, returned as
  //    `{ __proto__: null, "./NAME_bg.js": import0 }`).
  const names = new Map();
  const renamed = renameImports(optimized, (module, field) => {
    if (module !== glueModule) return [module, field];
    if (!names.has(field)) names.set(field, names.size.toString(36));
    return ['m', names.get(field)];
  });
  for (const [field, short] of names) js = once(jsPath, js, `\n        ${field}: `, `\n        "${short}": `);
  js = once(jsPath, js, `"${glueModule}": `, '"m": ');
  //    The glue reads the exports as `wasm.NAME`, and only so.
  const exported = new Map();
  const final = renameExports(renamed, (field) => {
    const short = `e${exported.size.toString(36)}`;
    exported.set(field, short);
    return short;
  });
  for (const [field, short] of exported) {
    const uses = js.split(new RegExp(`\\bwasm\\.${field}\\b`)).length - 1;
    if (js.includes(`'${field}'`) || js.includes(`"${field}"`)) throw new Error(`${jsPath}: ${field} is named other than as wasm.${field}`);
    if (uses === 0 && field !== 'memory') console.log(`${path.relative(dir, jsPath)}: export ${field} unused by the glue`);
    js = js.replace(new RegExp(`\\bwasm\\.${field}\\b`, 'g'), `wasm.${short}`);
  }
  // 4. terser.
  const min = await minify(js, { module: true, compress: true, mangle: true, format: { comments: false } });
  fs.writeFileSync(wasmPath, final);
  fs.writeFileSync(jsPath, min.code);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `${path.relative(dir, wasmPath)}: ${snipped} panic entry points trap, ${names.size} imports and ${exported.size} exports renamed; ` +
      `wasm ${kb(built.length)} -> ${kb(final.length)}, glue ${kb(Buffer.byteLength(js))} -> ${kb(min.code.length)}`,
  );
}

/** `text` with `from` (which must occur exactly once) replaced by `to`. */
function once(file, text, from, to) {
  const at = text.split(from);
  if (at.length !== 2) throw new Error(`${file}: expected ${JSON.stringify(from)} once, found it ${at.length - 1} times`);
  return at.join(to);
}
