/**
 * Memory of one shared response with clients reading at different speeds (issue 10, item 4):
 * pairs of one fast and one slow client share a large response through the HTTP cache served
 * over node:http; the process's peak RSS is sampled while they read. The origin runs in a
 * child process, so its own buffers do not count, and every case runs in a fresh process, so
 * that one case's high-water mark does not hide the next one's. Loopback only, bounded in
 * bytes and time.
 *
 *   npx tsx bench/shared-body-memory.ts            # 200 MB body; 1 pair, then 3 pairs; with and without a strong ETag
 *   npx tsx bench/shared-body-memory.ts --quick    # 40 MB body, 1 pair
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { memoryStore } from '../adapters/memory/index.ts';
import { withCache } from '../src/http/index.ts';
import { serveFetch } from '../test/http/node-serve.ts';

const quick = process.argv.includes('--quick');
const MB = 1024 * 1024;
const BODY_MB = quick ? 40 : 200;
const SLOW_PAUSE_MS = quick ? 500 : 2000;

/** The origin: a child process serving BODY_MB of bytes, with or without a strong ETag (and then ranges). */
const ORIGIN = `
const http = require('node:http');
const size = ${BODY_MB} * 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 7);
http.createServer((req, res) => {
  const etag = req.url.startsWith('/etag') ? '"big-v1"' : undefined;
  let start = 0;
  const range = /^bytes=(\\d+)-$/.exec(req.headers.range || '');
  const headers = { 'cache-control': 'max-age=60', 'content-type': 'application/octet-stream' };
  if (etag) { headers.etag = etag; headers['accept-ranges'] = 'bytes'; }
  if (etag && range && req.headers['if-range'] === etag) {
    start = Number(range[1]);
    res.writeHead(206, { ...headers, 'content-range': 'bytes ' + start + '-' + (size - 1) + '/' + size, 'content-length': size - start });
  } else {
    res.writeHead(200, headers); // chunked: no Content-Length, as a streaming origin sends it
  }
  let sent = start;
  const pump = () => {
    while (sent < size) {
      const n = Math.min(chunk.length, size - sent);
      sent += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return res.once('drain', pump);
    }
    res.end();
  };
  pump();
}).listen(0, '127.0.0.1', function () { process.send(this.address().port); });
`;

async function startOrigin(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-e', ORIGIN], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** Reads a response: at once, or after pausing `pauseMs` with only the first chunk taken. */
function client(url: string, pauseMs: number): Promise<{ bytes: number; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    httpRequest(url, (res: IncomingMessage) => {
      let bytes = 0;
      let paused = pauseMs === 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!paused) {
          paused = true;
          res.pause();
          setTimeout(() => res.resume(), pauseMs);
        }
      });
      res.on('end', () => resolve({ bytes, ms: Date.now() - started }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

async function run(origin: string, path: string, pairs: number): Promise<string> {
  const cached = withCache((req) => fetch(origin + new URL(req.url).pathname, { headers: req.headers }), { store: memoryStore() });
  const server = await serveFetch((req) => cached(req));
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const results: Array<Promise<{ bytes: number; ms: number }>> = [];
  for (let p = 0; p < pairs; p++) {
    const url = `${server.url}${path}${p}`;
    results.push(client(url, 0));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the slow one joins the fast one's forward
    results.push(client(url, SLOW_PAUSE_MS));
  }
  const done = await Promise.all(results);
  clearInterval(sampler);
  await server.close();
  await cached.close();
  const complete = done.every((d) => d.bytes === BODY_MB * MB);
  const fast = Math.max(...done.filter((_, i) => i % 2 === 0).map((d) => d.ms));
  return `RSS ${(base / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB (+${((peak - base) / MB).toFixed(0)}), fast clients done in ${fast} ms, every client got all ${BODY_MB} MB: ${complete}`;
}

const cases = (quick ? [1] : [1, 3]).flatMap(
  (pairs) =>
    [
      [pairs, 'strong ETag', '/etag'],
      [pairs, 'no validator', '/plain'],
    ] as const,
);
const only = process.env.SHARED_BODY_CASE;
if (only === undefined) {
  for (let i = 0; i < cases.length; i++) {
    const output = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      env: { ...process.env, SHARED_BODY_CASE: String(i) },
      encoding: 'utf8',
      timeout: 300_000,
    });
    process.stdout.write(output);
  }
} else {
  const [pairs, label, path] = cases[Number(only)]!;
  const origin = await startOrigin();
  try {
    console.log(`${pairs} fast+slow pair(s), ${BODY_MB} MB, ${label}: ${await run(origin.url, path, pairs)}`);
  } finally {
    origin.stop();
  }
}
