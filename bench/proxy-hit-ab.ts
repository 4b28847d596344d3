/**
 * The CPU of a cache hit through the caching proxy in this tree against another checkout of the
 * project (for "no regression" figures): both proxies run in this process in front of one
 * origin, and wrk (its own process) drives them in alternating rounds, so that load from
 * elsewhere on the machine hits both alike. Reported: the CPU this process spent per request,
 * median and least over the rounds, and the median of the ratios of each round's pair (the two
 * runs of a pair are seconds apart, so drift in the machine's load cancels out of their ratio).
 * Loopback only, bounded in time.
 *
 *   mkdir /tmp/cachette-main && git archive main | tar -x -C /tmp/cachette-main
 *   ln -s "$PWD/node_modules" /tmp/cachette-main/node_modules
 *   npx tsx bench/proxy-hit-ab.ts /tmp/cachette-main            # 21 rounds of 2 s per tree
 *   npx tsx bench/proxy-hit-ab.ts /tmp/cachette-main --quick    # 3 rounds of 1 s
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const other = process.argv[2];
if (!other || other.startsWith('--')) {
  console.error('usage: npx tsx bench/proxy-hit-ab.ts <root of another checkout> [--quick]');
  process.exit(2);
}
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 21;
const SECONDS = quick ? 1 : 2;
const run = promisify(execFile);

const body = JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) });
const origin = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
});
await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

const trees = { other: resolve(other), this: resolve(fileURLToPath(new URL('..', import.meta.url))) };
const proxies: Record<string, { url: string; close(): Promise<void> }> = {};
for (const [name, root] of Object.entries(trees)) {
  const { startProxy } = await import(`${root}/products/proxy/index.ts`);
  const { memoryStore } = await import(`${root}/adapters/memory/index.ts`);
  const proxy = await startProxy({ origin: originUrl, store: memoryStore() });
  const first = await fetch(`${proxy.url}/items`);
  await first.text();
  await proxy.idle();
  const check = await fetch(`${proxy.url}/items`);
  if (!/hit/.test(check.headers.get('cache-status') ?? '') || (await check.text()) !== body) throw new Error(`${name}: the second request is not a hit`);
  proxies[name] = proxy;
}

/** One wrk round against `url`: this process's CPU µs per request. */
async function round(url: string): Promise<number> {
  const before = process.cpuUsage();
  const { stdout } = await run('wrk', ['-t1', '-c20', `-d${SECONDS}s`, url]);
  const cpu = process.cpuUsage(before);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  return requests > 0 ? (cpu.user + cpu.system) / requests : Number.POSITIVE_INFINITY;
}

const samples: Record<string, number[]> = { other: [], this: [] };
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which tree goes first, so neither always follows the other.
  const order = r % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const);
  for (const name of order) samples[name]!.push(await round(`${proxies[name]!.url}/items`));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (values: number[]) => `median ${median(values).toFixed(1)} µs, least ${Math.min(...values).toFixed(1)} µs`;
const ratios = samples.this!.map((value, r) => value / samples.other![r]!);
console.log(`proxy cache hits, memory store, wrk -t1 -c20, ${ROUNDS} alternating rounds of ${SECONDS} s (CPU of this process per request)`);
console.log(`  ${trees.other}: ${summary(samples.other!)}`);
console.log(`  this tree: ${summary(samples.this!)}`);
console.log(
  `  this ÷ other, median of the paired rounds: ${median(ratios).toFixed(3)} (quartiles ${[...ratios].sort((a, b) => a - b)[Math.floor(ROUNDS / 4)]!.toFixed(3)}–${[...ratios].sort((a, b) => a - b)[Math.floor((3 * ROUNDS) / 4)]!.toFixed(3)})`,
);
for (const proxy of Object.values(proxies)) await proxy.close();
origin.close();
