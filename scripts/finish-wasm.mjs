// Finishes each page's wasm and its wasm-bindgen glue, release builds only (Trunk's own
// wasm-opt is off: data-wasm-opt="0" in the pages' HTML; scripts/trunk-post-build.sh runs
// this). For every NAME_bg.wasm under DIR with its NAME.js beside it:
//  1. panics become traps: the standard library's panic entry points (core::panicking::*,
//     Option/Result unwrap failures, slice and str index failures; each checked to never
//     return), and the functions that never return and call one, get a body that reports
//     "a Rust panic" to the console and traps. Their
//     callers then need no message formatting, which wasm-opt removes (std's
//     panic_immediate_abort does the same on nightly Rust; the Rust and WebAssembly book
//     shows it done with wasm-snip). A panic stops the page as before; only its message is
//     gone, which a debug build (trunk serve, no optimisation) still prints;
//  2. wasm-opt -Oz, with a flatten/rereloop round that shrinks it further (2 KB), and
//     without the producers and target-features sections; then the panic locations
//     (source path, line, column), which only a panic reads, are cleared from the data
//     (what nightly Rust's -Zlocation-detail=none leaves out);
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

/** Whether function `f` can only end by trapping or throwing, never by returning: its
 *  body's type is `unreachable` and nothing in it returns or branches out of it. */
function neverReturns(f) {
  if (binaryen.getExpressionType(f.body) !== binaryen.unreachable) return false;
  const text = binaryen.emitText(f.body);
  if (/\(return\b/.test(text)) return false;
  const label = text.match(/^\(block \$(\S+)/);
  return !label || !text.includes(`$${label[1]}`, label[0].length);
}

/** Step 1: `wasm` (with its name section) with every panic entry point, and every function
 *  that never returns and calls one (core::cell's borrow failures, alloc's capacity
 *  overflow, …), reporting and trapping. Returns the new bytes and how many functions it
 *  changed. */
function panicsToTraps(wasm, glueModule) {
  // The features are the module's own (its target_features section), so that binaryen
  // writes nothing a browser might not read.
  const m = binaryen.readBinary(wasm);
  const functions = () => {
    const all = [];
    for (let i = 0; i < m.getNumFunctions(); i++) all.push(binaryen.getFunctionInfo(m.getFunctionByIndex(i)));
    return all.filter((f) => f.body);
  };
  const trapping = new Set();
  m.addFunctionImport(REPORT_IMPORT, glueModule, REPORT_IMPORT, binaryen.none, binaryen.none);
  const trap = (f) => {
    m.removeFunction(f.name);
    m.addFunction(f.name, f.params, f.results, [],
      m.block(null, [m.call(REPORT_IMPORT, [], binaryen.none), m.unreachable()], binaryen.unreachable));
    trapping.add(f.name);
  };
  for (const f of functions().filter((f) => PANICS.some((re) => re.test(f.name)))) {
    // The standard library declares them `-> !`; check it, or a real change would follow.
    if (!neverReturns(f)) throw new Error(`${f.name} matches a panic entry point but can return`);
    trap(f);
  }
  if (trapping.size === 0) throw new Error('no panic entry point found (is the name section there?)');
  // Functions that only ever panic: their message formatting goes too.
  for (let more = true; more; ) {
    more = false;
    for (const f of functions()) {
      if (trapping.has(f.name) || !neverReturns(f)) continue;
      const text = binaryen.emitText(f.body);
      if ([...trapping].some((name) => text.includes(`(call $${name}`) || text.includes(`(call $"${name}"`))) {
        trap(f);
        more = true;
      }
    }
  }
  if (!m.validate()) throw new Error('the module does not validate after turning panics into traps');
  binaryen.setDebugInfo(true);
  const out = Buffer.from(m.emitBinary());
  m.dispose();
  return [out, trapping.size];
}

/** Step 2b: the panic locations, dead once panics trap (release builds read a
 *  `core::panic::Location` only to report a panic). Every record (source path, its length,
 *  line, column) in the active data becomes the same empty location, and every source path
 *  that nothing else points to (no word of the data, no i32.const of the code) becomes
 *  zeros; both then compress to almost nothing. A record is a Location only if its first
 *  two words are the address and exact length of a printable run ending in `.rs`. Returns
 *  the new bytes and the counts. */
function scrubPanicLocations(wasm) {
  const out = Buffer.from(wasm);
  let i = 8;
  const leb = () => {
    let r = 0;
    for (let sh = 0; ; sh += 7) {
      const x = out[i++];
      r += (x & 0x7f) * 2 ** sh;
      if (x < 0x80) return r;
    }
  };
  /** The signed LEB128 i32 at `at`: [value, position after it]. */
  const sleb32 = (at) => {
    let r = 0, sh = 0, x;
    do {
      x = out[at++];
      r |= (x & 0x7f) << sh;
      sh += 7;
    } while (x & 0x80 && sh < 35);
    return [sh < 32 && x & 0x40 ? r | (-1 << sh) : r, at];
  };
  const segments = [];
  let code = null;
  while (i < out.length) {
    const id = out[i++];
    const size = leb();
    const end = i + size;
    if (id === 10) code = [i, end];
    if (id === 11) {
      for (let n = leb(); n > 0; n--) {
        const flags = leb();
        let addr = null;
        if (flags === 2) leb(); // memory index
        if (flags !== 1) {
          // An active segment's offset: `i32.const N end` is all this reads; anything else
          // (a global) leaves the segment alone.
          if (out[i] === 0x41) {
            const [value, after] = sleb32(i + 1);
            if (out[after] === 0x0b) addr = value >>> 0;
          }
          while (out[i] !== 0x0b) i++;
          i++;
        }
        const len = leb();
        if (addr !== null) segments.push({ addr, pos: i, len });
        i += len;
      }
    }
    i = end;
  }
  const at = (addr, n) => segments.find((g) => addr >= g.addr && addr + n <= g.addr + g.len);
  const bytes = (addr, n) => {
    const g = at(addr, n);
    return g && out.subarray(g.pos + addr - g.addr, g.pos + addr - g.addr + n);
  };
  const isPath = (b) => b && b.length > 3 && b.every((c) => c > 0x20 && c < 0x7f) && b.includes(0x2f) &&
    b.subarray(b.length - 3).toString() === '.rs';
  const locations = [];
  const paths = new Map();
  for (const g of segments) {
    for (let o = (4 - (g.addr % 4)) % 4; o + 16 <= g.len; o += 4) {
      const p = out.readUInt32LE(g.pos + o), l = out.readUInt32LE(g.pos + o + 4);
      const line = out.readUInt32LE(g.pos + o + 8), col = out.readUInt32LE(g.pos + o + 12);
      if (line < 1 || line >= 1 << 20 || col < 1 || col >= 1 << 16 || l < 4 || l > 4096) continue;
      if (!isPath(bytes(p, l))) continue;
      locations.push(g.pos + o);
      paths.set(p, l);
    }
  }
  if (locations.length === 0) return [out, 0, 0];
  const locationAt = new Set(locations);
  // A path stays if anything but a Location points into it.
  const inPath = (v) => [...paths].find(([p, l]) => v >= p && v < p + l);
  const kept = new Set();
  for (const g of segments) {
    for (let o = (4 - (g.addr % 4)) % 4; o + 4 <= g.len; o += 4) {
      if (locationAt.has(g.pos + o) || locationAt.has(g.pos + o - 4)) continue;
      const hit = inPath(out.readUInt32LE(g.pos + o));
      if (hit) kept.add(hit[0]);
    }
  }
  for (let k = code[0]; k < code[1]; k++) {
    if (out[k] !== 0x41) continue;
    const hit = inPath(sleb32(k + 1)[0] >>> 0);
    if (hit) kept.add(hit[0]);
  }
  const [empty] = paths.keys();
  for (const o of locations) {
    out.writeUInt32LE(empty, o);
    out.writeUInt32LE(0, o + 4);
    out.writeUInt32LE(0, o + 8);
    out.writeUInt32LE(0, o + 12);
  }
  let zeroed = 0;
  for (const [p, l] of paths) {
    if (kept.has(p)) continue;
    bytes(p, l).fill(0);
    zeroed++;
  }
  return [out, locations.length, zeroed];
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
  const [optimized, locations, paths] = scrubPanicLocations(fs.readFileSync(output));
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
    if (js.includes(`'${field}'`) || js.includes(`"${field}"`)) throw new Error(`${jsPath}: ${field} is named other than as wasm.${field}`);
    js = js.replace(new RegExp(`\\bwasm\\.${field}\\b`, 'g'), `wasm.${short}`);
  }
  // 4. terser.
  const min = await minify(js, { module: true, compress: true, mangle: true, format: { comments: false } });
  fs.writeFileSync(wasmPath, final);
  fs.writeFileSync(jsPath, min.code);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `${path.relative(dir, wasmPath)}: ${snipped} panicking functions trap, ${locations} panic locations and ` +
      `${paths} source paths cleared, ${names.size} imports and ${exported.size} exports renamed; ` +
      `wasm ${kb(built.length)} -> ${kb(final.length)}, glue ${kb(Buffer.byteLength(js))} -> ${kb(min.code.length)}`,
  );
}

/** `text` with `from` (which must occur exactly once) replaced by `to`. */
function once(file, text, from, to) {
  const at = text.split(from);
  if (at.length !== 2) throw new Error(`${file}: expected ${JSON.stringify(from)} once, found it ${at.length - 1} times`);
  return at.join(to);
}
