// Finishes each page's wasm and its wasm-bindgen glue, release builds only (Trunk's own
// wasm-opt is off: data-wasm-opt="0" in the pages' HTML; scripts/trunk-post-build.sh runs
// this). For every NAME_bg.wasm under DIR with its NAME.js beside it:
//  1. panics become traps: the standard library's panic entry points (core::panicking::*,
//     Option/Result unwrap failures, slice and str index failures; each checked to never
//     return), and the functions that never return and call one, get a body that calls the
//     page's own `offset_window_panic_report` export (crates/app and crates/slide: a line in
//     the console) and traps. Their callers then need no message formatting, which wasm-opt
//     removes (std's panic_immediate_abort does the same on nightly Rust; the Rust and
//     WebAssembly book shows it done with wasm-snip). A panic stops the page as before; only
//     its message is gone, which a debug build (trunk serve, no optimisation) still prints;
//  2. wasm-opt -Oz, with a flatten/rereloop round that shrinks it further (2 KB), inlining
//     a function with one caller only when it is small, and without the producers and
//     target-features sections; then the panic locations (source path, line, column), which
//     only a panic reads, are cleared from the data (what nightly Rust's
//     -Zlocation-detail=none leaves out);
//  3. one name table for what the wasm and its glue share: the wasm's imports from the glue
//     ("0", "1", …; their module "./NAME_bg.js" becomes "m") and its exports ("e0", "e1",
//     …). The long names wasm-bindgen writes (__wbg_addEventListener_4d0db17c671ea324) end
//     in hashes that no compressor can shrink, and they appear in both files. The glue is
//     minified by terser (an ES module: its exports keep their names), whose property
//     mangler renames exactly the names of that table (`only_cache`) wherever the glue's
//     syntax tree has them as property names (the import object's keys, `wasm.NAME`); the
//     wasm's import and export sections get the same names. The glue's text is never edited
//     by hand;
//  4. a check that fails the build: the finished glue is loaded in node and its import
//     object must supply every import of the finished wasm (a WebAssembly.Instance is never
//     made: the page's code does not run here), and no long name may be left in the glue.
// scripts/finish-wasm.test.mjs tests the result in dist/ (scripts/test-web.sh runs it); the
// end-to-end tests and the budget check run against it.
// Usage: node scripts/finish-wasm.mjs DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import binaryen from 'binaryen';
import { minify } from 'terser';

const dir = process.argv[2];
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const WASM_OPT = path.join(root, 'node_modules', '.bin', 'wasm-opt');
// A fresh instance's memory is zeros (so zero runs of the data need no bytes); the
// producers and target-features sections are for tools, not browsers. A function with one
// caller is inlined there only when small (`-ocimfs 25`; wasm-opt's default inlines it
// whatever its size): each page comes out 0.9–1.6 KB smaller in brotli, 8 to 50 measuring
// within 0.3 KB of each other (docs/figures.md, session 16).
const WASM_OPT_PASSES = [
  '--zero-filled-memory', '--low-memory-unused', '--one-caller-inline-max-function-size', '25', '-Oz', '--flatten', '--rereloop', '-Oz', '-Oz', '-Oz', '--strip-producers', '--strip-target-features',
];

/** The standard library's panic entry points, by (demangled) name. */
const PANICS = [
  /^core(\[[0-9a-f]+\])?::panicking::/,
  /^core(\[[0-9a-f]+\])?::option::(unwrap_failed|expect_failed)$/,
  /^core(\[[0-9a-f]+\])?::result::unwrap_failed$/,
  /^core(\[[0-9a-f]+\])?::slice::index::slice_\w*fail$/,
  /^core(\[[0-9a-f]+\])?::str::slice_error_fail(_rt)?$/,
];
/** The export the trapping functions call first: the page's own report of a panic, one line
 *  in the console (`offset_window_panic_report` in crates/app/src/lib.rs and
 *  crates/slide/src/lib.rs). */
export const REPORT_EXPORT = 'offset_window_panic_report';

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
function panicsToTraps(wasm) {
  // The features are the module's own (its target_features section), so that binaryen
  // writes nothing a browser might not read.
  const m = binaryen.readBinary(wasm);
  const functions = () => {
    const all = [];
    for (let i = 0; i < m.getNumFunctions(); i++) all.push(binaryen.getFunctionInfo(m.getFunctionByIndex(i)));
    return all.filter((f) => f.body);
  };
  const trapping = new Set();
  const reportExport = m.getExport(REPORT_EXPORT);
  if (!reportExport) throw new Error(`the wasm exports no ${REPORT_EXPORT}`);
  const report = binaryen.getExportInfo(reportExport).value;
  const trap = (f) => {
    m.removeFunction(f.name);
    m.addFunction(f.name, f.params, f.results, [],
      m.block(null, [m.call(report, [], binaryen.none), m.unreachable()], binaryen.unreachable));
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
      if (trapping.has(f.name) || f.name === report || !neverReturns(f)) continue;
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

/** The names the wasm and its glue share, long → short: the wasm's imports from the glue
 *  (`glueModule`, which becomes "m") and every export. `wasm` is the module as
 *  wasm-bindgen wrote it (its imports are every key of the glue's import object). */
export function sharedNames(wasm, glueModule) {
  const names = new Map([[glueModule, 'm']]);
  let imports = 0;
  renameImports(wasm, (module, field) => {
    if (module === glueModule && !names.has(field)) names.set(field, (imports++).toString(36));
    return [module, field];
  });
  let exports = 0;
  renameExports(wasm, (field) => {
    if (names.has(field)) throw new Error(`${field} is both an import and an export`);
    names.set(field, `e${(exports++).toString(36)}`);
    return field;
  });
  return names;
}

/** Step 3: the wasm and its glue with the short names of `names` (sharedNames), the glue
 *  minified by terser, whose property mangler renames exactly those names. */
export async function shortenNames(wasm, js, names) {
  const short = (name) => names.get(name) ?? name;
  const renamed = renameExports(renameImports(wasm, (module, field) =>
    names.has(module) ? [short(module), short(field)] : [module, field]), short);
  const min = await minify(js, {
    module: true,
    compress: true,
    mangle: { properties: { only_cache: true, builtins: true, cache: { props: new Map(names) } } },
    format: { comments: false },
  });
  return [renamed, min.code];
}

/** Step 4: throws unless the glue `jsPath` supplies every import of `wasm` (from its import
 *  object, read by loading the glue in node and stopping it at `new WebAssembly.Instance`,
 *  so no code of the page runs) and no long name of `names` is left in it. */
export async function checkFinished(jsPath, wasm, names) {
  const js = fs.readFileSync(jsPath, 'utf8');
  // A long name left as a property (`.NAME`, `NAME:`, `"NAME"`); an export the glue passes
  // on under its own name (`export function slide`) is no property.
  const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [name, to] of names) {
    const left = new RegExp(`\\.${escape(name)}\\b|["']${escape(name)}["']|\\b${escape(name)}\\s*:`);
    if (name !== to && left.test(js)) throw new Error(`${jsPath}: ${name} is left in the glue`);
  }
  // As a data: URL, which node loads as an ES module without looking for a package.json.
  const glue = await import(`data:text/javascript;base64,${Buffer.from(js).toString('base64')}`);
  const module = new WebAssembly.Module(wasm);
  const Instance = WebAssembly.Instance;
  const stop = new Error('stop');
  let given;
  WebAssembly.Instance = function (_, imports) {
    given = imports;
    throw stop;
  };
  try {
    glue.initSync({ module });
  } catch (e) {
    if (e !== stop) throw e;
  } finally {
    WebAssembly.Instance = Instance;
  }
  if (!given) throw new Error(`${jsPath}: the glue made no WebAssembly.Instance`);
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    const value = given[from]?.[name];
    if (kind === 'function' ? typeof value !== 'function' : value === undefined) {
      throw new Error(`${jsPath}: the glue's import object has no ${kind} ${from}.${name}`);
    }
  }
  return WebAssembly.Module.imports(module).length;
}

/** Finishes the NAME_bg.wasm at `wasmPath` and its glue NAME.js beside it, in place. */
async function finish(wasmPath, jsPath) {
  const js = fs.readFileSync(jsPath, 'utf8');
  const built = fs.readFileSync(wasmPath);
  const glueModule = glueModuleOf(built);
  // 1. Panics become traps.
  const [trapping, snipped] = panicsToTraps(built);
  // 2. wasm-opt.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'finish-wasm-'));
  const [input, output] = [path.join(tmp, 'in.wasm'), path.join(tmp, 'out.wasm')];
  fs.writeFileSync(input, trapping);
  execFileSync(WASM_OPT, [...WASM_OPT_PASSES, input, '-o', output], { stdio: 'inherit' });
  const [optimized, locations, paths] = scrubPanicLocations(fs.readFileSync(output));
  fs.rmSync(tmp, { recursive: true });
  // 3. Short names, the glue minified. The table is of the wasm as built: the glue still
  //    supplies what wasm-opt left unused (the panic hook's console imports), under short
  //    names too.
  const names = sharedNames(built, glueModule);
  const [final, min] = await shortenNames(optimized, js, names);
  fs.writeFileSync(wasmPath, final);
  fs.writeFileSync(jsPath, min);
  // 4. The check.
  const imports = await checkFinished(jsPath, final, names);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `${path.relative(dir, wasmPath)}: ${snipped} panicking functions trap, ${locations} panic locations and ` +
      `${paths} source paths cleared, ${names.size - 1} names shortened, ${imports} imports checked; ` +
      `wasm ${kb(built.length)} -> ${kb(final.length)}, glue ${kb(Buffer.byteLength(js))} -> ${kb(min.length)}`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (!dir) throw new Error('usage: node scripts/finish-wasm.mjs DIR');
  for (const wasmPath of wasmFiles(dir)) {
    const jsPath = wasmPath.replace(/_bg\.wasm$/, '.js');
    if (fs.existsSync(jsPath)) await finish(wasmPath, jsPath);
  }
}
