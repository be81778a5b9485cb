// Shrinks each page's wasm-bindgen glue, release builds only (scripts/trunk-post-build.sh):
// for every NAME_bg.wasm under DIR with its NAME.js beside it,
//  1. the wasm's imports from the glue get short names ("0", "1", …; the module
//     "./NAME_bg.js" becomes "m"), and the glue's import object the same keys: the long
//     names wasm-bindgen writes (__wbg_addEventListener_4d0db17c671ea324) end in hashes
//     that no compressor can shrink, and they appear in both files;
//  2. the glue is minified by terser (an ES module: its exports keep their names).
// The page's behaviour does not change; the end-to-end tests run against the result.
// Usage: node scripts/minify-glue.mjs DIR
import fs from 'node:fs';
import path from 'node:path';
import { minify } from 'terser';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/minify-glue.mjs DIR');

function* wasmFiles(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) yield* wasmFiles(p);
    else if (e.name.endsWith('_bg.wasm')) yield p;
  }
}

/** Rewrites the import section of `wasm`: `rename(module, name)` gives [module, name]. */
function renameImports(wasm, rename) {
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
    if (id !== 2) {
      out.push(Buffer.from([id]), enc(size), wasm.subarray(i, end));
      i = end;
      continue;
    }
    const count = leb();
    const parts = [enc(count)];
    for (let k = 0; k < count; k++) {
      const [module, field] = rename(name(), name());
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
  const wasm = fs.readFileSync(wasmPath);
  const names = new Map();
  let glueModule = null;
  const renamed = renameImports(wasm, (module, field) => {
    if (!module.startsWith('./')) return [module, field];
    if (glueModule !== null && glueModule !== module) throw new Error(`${wasmPath}: two glue modules`);
    glueModule = module;
    if (!names.has(field)) names.set(field, names.size.toString(36));
    return ['m', names.get(field)];
  });
  // The glue's import object: `const import0 = { __proto__: null, NAME: function…, … }`,
  // returned as `{ __proto__: null, "./NAME_bg.js": import0 }`.
  const once = (text, from, to) => {
    const at = text.split(from);
    if (at.length !== 2) throw new Error(`${jsPath}: expected ${from} once, found it ${at.length - 1} times`);
    return at.join(to);
  };
  for (const [field, short] of names) js = once(js, `\n        ${field}: `, `\n        "${short}": `);
  if (glueModule !== null) js = once(js, `"${glueModule}": `, '"m": ');
  const min = await minify(js, { module: true, compress: true, mangle: true, format: { comments: false } });
  fs.writeFileSync(wasmPath, renamed);
  fs.writeFileSync(jsPath, min.code);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `${path.relative(dir, jsPath)}: ${names.size} imports renamed; glue ${kb(Buffer.byteLength(js))} -> ${kb(min.code.length)}, wasm ${kb(wasm.length)} -> ${kb(renamed.length)}`,
  );
}
