// Writes FILE.br (brotli, quality 11) and FILE.gz (gzip -9) beside every asset of a built
// dist/ directory, for hosts that serve precompressed files (nginx gzip_static /
// brotli_static, Caddy's precompressed, Netlify and most CDNs do). Node's own zlib does the
// compressing. Usage: node scripts/precompress.mjs DIR
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/precompress.mjs DIR');
const ASSETS = /\.(html|js|mjs|wasm|css|svg|json)$/;

function* files(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (ASSETS.test(e.name)) yield p;
  }
}

// Brotli's distance coding (postfix bits, direct distances) and block size suit some files
// better than its defaults: each .br is the smallest of these encodings (any of them is
// ordinary brotli to a browser). On the wasm files that is 0.1–0.2 % (docs/figures.md).
const { constants: Z } = zlib;
const BROTLI_VARIANTS = [{}, { [Z.BROTLI_PARAM_NPOSTFIX]: 1, [Z.BROTLI_PARAM_NDIRECT]: 12 }, { [Z.BROTLI_PARAM_NPOSTFIX]: 2, [Z.BROTLI_PARAM_NDIRECT]: 8 }, { [Z.BROTLI_PARAM_LGBLOCK]: 24 }];

let count = 0;
for (const file of files(dir)) {
  const body = fs.readFileSync(file);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  const brotli = BROTLI_VARIANTS.map((variant) => zlib.brotliCompressSync(body, {
    params: {
      [Z.BROTLI_PARAM_QUALITY]: 11,
      [Z.BROTLI_PARAM_SIZE_HINT]: body.length,
      [Z.BROTLI_PARAM_MODE]: /\.(wasm)$/.test(file) ? Z.BROTLI_MODE_GENERIC : Z.BROTLI_MODE_TEXT,
      ...variant,
    },
  }));
  const smallest = brotli.reduce((a, b) => (b.length < a.length ? b : a));
  if (!zlib.brotliDecompressSync(smallest).equals(body)) throw new Error(`${file}: brotli does not round-trip`);
  fs.writeFileSync(`${file}.br`, smallest);
  count++;
}
console.log(`precompressed ${count} files in ${dir} (.br and .gz beside each)`);
