/**
 * The caching proxy under load: cache hits and forwarded requests (Cache-Control: no-cache)
 * through `startProxy` in front of a local origin, driven by wrk in its own process. Reports
 * requests per second and, steadier on a shared machine, the CPU this process (the proxy,
 * and the origin, which is idle on hits) spent per request. A last case forwards to an
 * origin that takes 20 ms with 50 connections, beside the same origin asked directly: the
 * proxy should come close to the origin's own rate (50 / 20 ms = 2,500 req/s at most).
 * Loopback only, bounded in time.
 *
 *   npx tsx bench/proxy-hits.ts            # 3 rounds of 5 s per case, best round reported
 *   npx tsx bench/proxy-hits.ts --quick    # 1 round of 1 s: a smoke run
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { memoryStore } from '../adapters/memory/index.ts';
import { startProxy } from '../products/proxy/index.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 1 : 3;
const SECONDS = quick ? 1 : 5;
const run = promisify(execFile);

try {
  await run('wrk', ['--version']).catch((error: { stdout?: string }) => {
    // wrk prints its version and exits 1: only a missing binary is a failure.
    if (!error.stdout?.includes('wrk')) throw error;
  });
} catch {
  console.error('bench/proxy-hits.ts needs wrk (apt-get install wrk)');
  process.exit(1);
}

const body = JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) });
const answer = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
};
/** The origin: at once, or after 20 ms for paths under /slow. */
const origin = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (req.url?.startsWith('/slow')) setTimeout(() => answer(res), 20);
  else answer(res);
});
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
const proxy = await startProxy({ origin: originUrl, store: memoryStore() });
await (await fetch(`${proxy.url}/items`)).text();
await proxy.idle();

/** The best of ROUNDS wrk runs: requests per second and this process's CPU µs per request. */
async function measure(url: string, connections: number, extra: readonly string[]): Promise<{ rps: number; cpuUs: number }> {
  let best = { rps: 0, cpuUs: Infinity };
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    const { stdout } = await run('wrk', ['-t1', `-c${connections}`, `-d${SECONDS}s`, ...extra, url]);
    const cpu = process.cpuUsage(before);
    const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
    const cpuUs = requests > 0 ? (cpu.user + cpu.system) / requests : Infinity;
    if (cpuUs < best.cpuUs) best = { rps, cpuUs };
  }
  return best;
}

const NO_CACHE = ['-H', 'Cache-Control: no-cache'];
const cases: ReadonlyArray<[name: string, url: string, connections: number, extra: readonly string[]]> = [
  ['cache hits', `${proxy.url}/items`, 20, []],
  ['forwarded (no-cache)', `${proxy.url}/items`, 20, NO_CACHE],
  ['forwarded, 20 ms origin', `${proxy.url}/slow`, 50, NO_CACHE],
  ['20 ms origin directly', `${originUrl}/slow`, 50, []],
];
console.log(`proxy, memory store, wrk -t1 -d${SECONDS}s, best of ${ROUNDS} (the CPU is this process's: proxy and origin)`);
for (const [name, url, connections, extra] of cases) {
  const { rps, cpuUs } = await measure(url, connections, extra);
  console.log(`  ${name.padEnd(24)} -c${String(connections).padEnd(3)} ${rps.toFixed(0).padStart(7)} req/s   ${cpuUs.toFixed(1).padStart(7)} µs CPU per request`);
}
await proxy.close();
origin.close();
