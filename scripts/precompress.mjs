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

let count = 0;
for (const file of files(dir)) {
  const body = fs.readFileSync(file);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      [zlib.constants.BROTLI_PARAM_MODE]: /\.(wasm)$/.test(file) ? zlib.constants.BROTLI_MODE_GENERIC : zlib.constants.BROTLI_MODE_TEXT,
    },
  }));
  count++;
}
console.log(`precompressed ${count} files in ${dir} (.br and .gz beside each)`);
