/**
 * HTTP cache figures: the CPU a cache hit adds per request over calling the handler directly,
 * and req/s of hits through the caching reverse proxy against an uncached 20 ms origin, with
 * wrk as the load generator (a separate process, so it does not share this event loop).
 * Loopback only; every phase is bounded in calls or seconds; the redis-server it starts is
 * stopped even when this process crashes (see support/owned-redis.ts).
 *
 *   npx tsx bench/http-overhead.ts            # memory, and valkey when REDIS_URL is set or redis-server is installed
 *   npx tsx bench/http-overhead.ts --quick    # smoke run: a few thousand calls, 1 s of wrk per row
 *   npx tsx bench/http-overhead.ts --hits     # only the per-hit overhead (no proxy, no wrk)
 *   WRK_SECONDS=10 WRK_CONNECTIONS=50 npx tsx bench/http-overhead.ts
 */
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { memoryStore } from '../adapters/memory/index.ts';
import { valkeyStore } from '../adapters/valkey/index.ts';
import { startProxy } from '../products/proxy/index.ts';
import { withCache } from '../src/http/index.ts';
import type { Store } from '../src/index.ts';
import { serveFetch } from '../test/http/node-serve.ts';
import { startOwnedRedis } from './support/owned-redis.ts';

const quick = process.argv.includes('--quick');
const hitsOnly = process.argv.includes('--hits');
const HIT_ITERATIONS = quick ? 2_000 : 20_000;
const WARMUP = quick ? 500 : 5_000;
const ROUNDS = quick ? 2 : 9;
const WRK_SECONDS = Number(process.env.WRK_SECONDS ?? (quick ? 1 : 5));
const WRK_CONNECTIONS = Number(process.env.WRK_CONNECTIONS ?? 50);

const body = new TextEncoder().encode(JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }));
const headers: Array<[string, string]> = [
  ['content-type', 'application/json'],
  ['cache-control', 'max-age=3600'],
  ['etag', '"v1"'],
];

/** Tags on the stored response (its `Cache-Tag`): a tagged hit must also check their generations. */
const taggedHeaders: Array<[string, string]> = [...headers, ['cache-tag', 'items, catalogue']];

/**
 * CPU µs (user + system) and wall µs per call of `fn` over one round: CPU time is what the
 * cache adds, and other load on a shared machine inflates it far less than wall time; wall
 * time shows the round trips a hit waits for.
 */
async function costPerCall(fn: () => Promise<Response>): Promise<{ cpu: number; wall: number }> {
  const start = process.cpuUsage();
  const began = performance.now();
  for (let i = 0; i < HIT_ITERATIONS; i++) await fn();
  const wall = ((performance.now() - began) * 1000) / HIT_ITERATIONS;
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / HIT_ITERATIONS, wall };
}

/**
 * A hit through the wrapper against a handler that directly returns the same bytes and
 * headers: rounds of each alternate, and the best round of each counts.
 */
async function hitOverhead(name: string, store: Store, label: string, responseHeaders = headers): Promise<void> {
  const direct = async () => new Response(body, { status: 200, headers: responseHeaders });
  const cached = withCache(direct, { store, namespace: `bench-${Date.now()}` });
  const request = new Request('http://bench.local/items');
  await (await cached(request)).arrayBuffer();
  await cached.idle();
  const check = await cached(request);
  if (!/hit/.test(check.headers.get('cache-status') ?? '')) throw new Error(`expected a hit, got Cache-Status: ${check.headers.get('cache-status')}`);
  const hit = () => cached(request);
  for (let i = 0; i < WARMUP; i++) {
    await direct();
    await hit();
  }
  let bestDirect = Infinity;
  let bestHit = Infinity;
  let bestHitWall = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    bestDirect = Math.min(bestDirect, (await costPerCall(direct)).cpu);
    const hits = await costPerCall(hit);
    bestHit = Math.min(bestHit, hits.cpu);
    bestHitWall = Math.min(bestHitWall, hits.wall);
  }
  await cached.close();
  console.log(
    `${name} (${label}): direct handler ${bestDirect.toFixed(2)} CPU µs/call, cache hit ${bestHit.toFixed(2)} CPU µs/call → overhead ${(bestHit - bestDirect).toFixed(2)} µs per hit; a hit takes ${bestHitWall.toFixed(1)} µs wall, one at a time`,
  );
}

/** Requests/s that wrk measured against `url` for WRK_SECONDS with WRK_CONNECTIONS connections. */
async function wrk(url: string, extra: string[] = []): Promise<number> {
  const args = ['-t', '1', '-c', String(WRK_CONNECTIONS), '-d', `${WRK_SECONDS}s`, ...extra, url];
  const { stdout } = await promisify(execFile)('wrk', args, { timeout: (WRK_SECONDS + 30) * 1000 });
  const match = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  if (!match) throw new Error(`wrk printed no Requests/sec:\n${stdout}`);
  const errors = /Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)/.exec(stdout);
  if (errors) console.log(`  (wrk reported: ${errors[0]})`);
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

const haveWrk = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim() !== '';
const redis = process.env.REDIS_URL ? undefined : await startOwnedRedis();
const redisUrl = process.env.REDIS_URL ?? redis?.url;
if (!redisUrl) console.log('(no redis-server: valkey figures skipped)');

try {
  const stores: Array<[string, () => Store]> = [['memory', () => memoryStore()]];
  if (redisUrl) stores.push(['valkey', () => valkeyStore(redisUrl)]);

  for (const [name, open] of stores) {
    const store = open();
    await hitOverhead(name, store, 'global Response');
    await store.close();
  }
  for (const [name, open] of stores) {
    const store = open();
    await hitOverhead(name, store, 'global Response, tagged response (Cache-Tag: 2 tags)', taggedHeaders);
    await store.close();
  }
  // @hono/node-server replaces the global Response with its lazy one once it serves: the same
  // comparison again, where the Response itself costs almost nothing and the cache's share shows.
  const lazy = await serveFetch(() => new Response('installs the lazy Response'));
  await lazy.close();
  for (const [name, open] of stores) {
    const store = open();
    await hitOverhead(name, store, "@hono/node-server's Response");
    await store.close();
  }

  if (hitsOnly) {
    // Only the in-process figures were asked for.
  } else if (!haveWrk) {
    console.log('(wrk is not installed — apt-get install wrk: proxy req/s figures skipped)');
  } else {
    const origin = await slowOrigin();
    try {
      const flags = `-t 1 -c ${WRK_CONNECTIONS} -d ${WRK_SECONDS}s`;
      console.log(`uncached 20 ms origin: wrk ${flags} ${origin.url}/items → ${(await wrk(`${origin.url}/items`)).toFixed(0)} req/s`);
      for (const [name, open] of stores) {
        const store = open();
        const proxy = await startProxy({ origin: origin.url, store });
        try {
          await (await fetch(`${proxy.url}/items`)).arrayBuffer();
          await proxy.idle();
          const forwarded = await wrk(`${proxy.url}/items`, ['-H', 'Cache-Control: no-cache']);
          console.log(`${name}: proxy, forwarded (no-cache requests): wrk ${flags} -H "Cache-Control: no-cache" → ${forwarded.toFixed(0)} req/s`);
          console.log(`${name}: proxy, cache hits: wrk ${flags} → ${(await wrk(`${proxy.url}/items`)).toFixed(0)} req/s`);
        } finally {
          await proxy.close();
        }
        await store.close();
      }
    } finally {
      origin.close();
    }
  }
} finally {
  await redis?.stop();
}
