// A static file server for dist/ on 127.0.0.1, on a free port (port 0 lets the kernel
// choose), under a sub-path (as a blog hosts it: everything outside PREFIX is 404): prints
// its base URL as the first line of stdout, then serves until killed.
// Usage: node tests/e2e/serve.mjs DIR [PORT] [PREFIX]   (PREFIX like /blog/kafka/, default /)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? 'dist');
const port = Number(process.argv[3] ?? 0);
const prefix = process.argv[4] ?? '/';
if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error(`PREFIX must start and end with /: ${prefix}`);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
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
  fs.readFile(file, (err, body) => {
    if (err) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': types[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(body);
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}${prefix}`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
