/**
 * The CPU of an HTTP cache hit in this tree against another checkout of the project (for
 * "no regression" figures), measured in one process with the two alternating round by round,
 * so that load from elsewhere on the machine hits both alike. In-process, memory store.
 *
 *   git worktree add /tmp/cachette-main main      # or any checkout, with node_modules resolvable
 *   npx tsx bench/http-hit-ab.ts /tmp/cachette-main            # global Response
 *   npx tsx bench/http-hit-ab.ts /tmp/cachette-main --lazy     # @hono/node-server's Response (the cache's own share)
 *   npx tsx bench/http-hit-ab.ts /tmp/cachette-main --quick
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveFetch } from '../test/http/node-serve.ts';

const other = process.argv[2];
if (!other || other.startsWith('--')) {
  console.error('usage: npx tsx bench/http-hit-ab.ts <root of another checkout> [--lazy] [--quick]');
  process.exit(2);
}
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 21;
const CALLS = quick ? 2_000 : 20_000;
if (process.argv.includes('--lazy')) await (await serveFetch(() => new Response('installs the lazy Response'))).close();

const body = new TextEncoder().encode(JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }));
const headers: Array<[string, string]> = [
  ['content-type', 'application/json'],
  ['cache-control', 'max-age=3600'],
  ['etag', '"v1"'],
];
const trees = { other: resolve(other), this: resolve(fileURLToPath(new URL('..', import.meta.url))) };
const hits: Record<string, () => Promise<Response>> = {};
for (const [name, root] of Object.entries(trees)) {
  // withCache, or httpCache in a checkout from before the rename.
  const http = await import(`${root}/src/http/index.ts`);
  const withCache = http.withCache ?? http.httpCache;
  const { memoryStore } = await import(`${root}/adapters/memory/index.ts`);
  const cached = withCache(async () => new Response(body, { status: 200, headers }), { store: memoryStore() });
  const request = new Request('http://bench.local/items');
  await (await cached(request)).arrayBuffer();
  await cached.idle();
  const check = await cached(request);
  if (!/hit/.test(check.headers.get('cache-status') ?? '')) throw new Error(`${name}: expected a hit, got ${check.headers.get('cache-status')}`);
  hits[name] = () => cached(request);
}

const samples: Record<string, number[]> = { other: [], this: [] };
for (let i = 0; i < CALLS / 4; i++) for (const name of ['other', 'this']) await hits[name]!();
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? ['other', 'this'] : ['this', 'other']) {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await hits[name]!();
    const used = process.cpuUsage(start);
    samples[name]!.push((used.user + used.system) / CALLS);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const name of ['other', 'this']) console.log(`${name} (${trees[name as 'other']}): median ${median(samples[name]!).toFixed(2)} CPU µs per hit, best ${Math.min(...samples[name]!).toFixed(2)}`);
console.log(`this / other, median: ${(median(samples.this!) / median(samples.other!)).toFixed(3)}`);
