// A static file server for dist/ on 127.0.0.1, on a free port (port 0 lets the kernel
// choose), under a sub-path (as a blog hosts it: everything outside PREFIX is 404): prints
// its base URL as the first line of stdout, then serves until killed. Like a host set up
// for precompressed files (nginx gzip_static / brotli_static), it answers with FILE.br or
// FILE.gz when the browser accepts that encoding and the build wrote one
// (scripts/precompress.mjs); `--plain` serves every file as it is.
// Usage: node tests/e2e/serve.mjs DIR [PORT] [PREFIX] [--plain]   (PREFIX like /blog/kafka/, default /)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2).filter((a) => a !== '--plain');
const plain = process.argv.includes('--plain');
const root = path.resolve(args[0] ?? 'dist');
const port = Number(args[1] ?? 0);
const prefix = args[2] ?? '/';
if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error(`PREFIX must start and end with /: ${prefix}`);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (!url.pathname.startsWith(prefix)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: this server serves ${prefix} only\n`);
    return;
  }
  let file = path.join(root, decodeURIComponent(url.pathname.slice(prefix.length - 1)));
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  if (file.endsWith(path.sep)) file = path.join(file, 'index.html');
  const accepted = plain ? [] : (req.headers['accept-encoding'] ?? '').split(',').map((e) => e.trim().split(';')[0]);
  const encoding = [['br', '.br'], ['gzip', '.gz']].find(([e, ext]) => accepted.includes(e) && fs.existsSync(file + ext));
  fs.readFile(encoding ? file + encoding[1] : file, (err, body) => {
    if (err) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': types[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
      vary: 'accept-encoding',
      ...(encoding ? { 'content-encoding': encoding[0] } : {}),
    });
    res.end(body);
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}${prefix}`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
