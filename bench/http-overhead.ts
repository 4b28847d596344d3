/**
 * HTTP cache figures: per-hit overhead of the wrapper, and req/s of cache hits through the
 * reverse proxy against an uncached 20 ms origin. Loopback only, bounded in count.
 *
 *   npx tsx bench/http-overhead.ts            # memory, and valkey when REDIS_URL is set or redis-server is installed
 *   HEY_N=20000 HEY_C=50 npx tsx bench/http-overhead.ts
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStore } from '../adapters/memory/index.ts';
import { valkeyStore } from '../adapters/valkey/index.ts';
import { startProxy } from '../runtimes/node/proxy/index.ts';
import { httpCache } from '../src/http/index.ts';
import type { Store } from '../src/index.ts';
import { startRedis, type RedisServer } from '../test/support/redis-server.ts';

const HIT_ITERATIONS = 20_000;
const ROUNDS = 7;
const N = Number(process.env.HEY_N ?? 20_000);
const C = Number(process.env.HEY_C ?? 50);

const body = new TextEncoder().encode(JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }));
const headers: Array<[string, string]> = [['content-type', 'application/json'], ['cache-control', 'max-age=3600'], ['etag', '"v1"']];

/** µs per call of `fn`: the best of several rounds, so that other load on the machine does not count. */
async function perCall(fn: () => Promise<Response>): Promise<number> {
  for (let i = 0; i < 5000; i++) await fn();
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < HIT_ITERATIONS; i++) await fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / HIT_ITERATIONS);
  }
  return best;
}

/** A hit through the wrapper against a handler that directly returns the same bytes and headers. */
async function hitOverhead(name: string, store: Store, label: string): Promise<void> {
  const direct = async () => new Response(body, { status: 200, headers });
  const cached = httpCache(direct, { store, namespace: `bench-${Date.now()}` });
  const request = new Request('http://bench.local/items');
  await (await cached(request)).arrayBuffer();
  await cached.idle();
  const d = await perCall(direct);
  const hit = await perCall(() => cached(request));
  await cached.close();
  console.log(`${name} (${label}): direct handler ${d.toFixed(2)} µs/call, cache hit ${hit.toFixed(2)} µs/call → overhead ${(hit - d).toFixed(2)} µs per hit`);
}

// hey runs as a child process without blocking this one: the servers under test live here.
async function hey(url: string, extra: string[] = []): Promise<number> {
  const { stdout } = await promisify(execFile)('hey', ['-n', String(N), '-c', String(C), ...extra, url]);
  const match = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  if (!match) throw new Error(`hey printed no Requests/sec:\n${stdout}`);
  return Number(match[1]);
}

async function slowOrigin(): Promise<{ url: string; close(): void }> {
  const server = createServer((_, res) => {
    setTimeout(() => {
      res.writeHead(200, Object.fromEntries(headers));
      res.end(body);
    }, 20);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

let redis: RedisServer | undefined;
let redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  try {
    redis = await startRedis();
    redisUrl = redis.url;
  } catch {
    console.log('(no redis-server: valkey figures skipped)');
  }
}

const stores: Array<[string, () => Store]> = [['memory', () => memoryStore()]];
if (redisUrl) stores.push(['valkey', () => valkeyStore(redisUrl!)]);

for (const [name, open] of stores) {
  const store = open();
  await hitOverhead(name, store, 'global Response');
  await store.close();
}

const origin = await slowOrigin();
console.log(`uncached 20 ms origin: hey -n ${N} -c ${C} ${origin.url}/items → ${(await hey(`${origin.url}/items`)).toFixed(0)} req/s`);
for (const [name, open] of stores) {
  const store = open();
  const proxy = await startProxy({ origin: origin.url, store });
  const first = await fetch(`${proxy.url}/items`);
  await first.arrayBuffer();
  await proxy.idle();
  console.log(`${name}: proxy, forwarded (no-cache requests): hey -n ${N} -c ${C} -H "Cache-Control: no-cache" → ${(await hey(`${proxy.url}/items`, ["-H", "Cache-Control: no-cache"])).toFixed(0)} req/s`);
  console.log(`${name}: proxy, cache hits: hey -n ${N} -c ${C} ${proxy.url}/items → ${(await hey(`${proxy.url}/items`)).toFixed(0)} req/s`);
  await proxy.close();
  // @hono/node-server has now replaced the global Response with its lazy one: the same
  // comparison again, where the Response itself costs almost nothing and the cache's share shows.
  await hitOverhead(name, store, "@hono/node-server's Response");
  await store.close();
}
origin.close();
await redis?.stop();
