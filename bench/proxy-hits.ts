/**
 * The caching proxy under load: cache hits and forwarded requests (Cache-Control: no-cache)
 * through `startProxy` in front of a local origin, driven by wrk in its own process. Reports
 * requests per second and, steadier on a shared machine, the CPU this process (the proxy,
 * the origin idle on hits) spent per request. Loopback only, bounded in time.
 *
 *   npx tsx bench/proxy-hits.ts            # 3 rounds of 5 s per case, best round reported
 *   npx tsx bench/proxy-hits.ts --quick    # 1 round of 1 s: a smoke run
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { memoryStore } from '../adapters/memory/index.ts';
import { startProxy } from '../runtimes/node/proxy/index.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 1 : 3;
const SECONDS = quick ? 1 : 5;
const CONNECTIONS = 20;
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
const origin = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
});
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const proxy = await startProxy({ origin: `http://127.0.0.1:${(origin.address() as AddressInfo).port}`, store: memoryStore() });
await (await fetch(`${proxy.url}/items`)).text();
await proxy.idle();

/** The best of ROUNDS wrk runs: requests per second and this process's CPU µs per request. */
async function measure(extra: string[]): Promise<{ rps: number; cpuUs: number }> {
  let best = { rps: 0, cpuUs: Infinity };
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    const { stdout } = await run('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, ...extra, `${proxy.url}/items`]);
    const cpu = process.cpuUsage(before);
    const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
    const cpuUs = requests > 0 ? (cpu.user + cpu.system) / requests : Infinity;
    if (cpuUs < best.cpuUs) best = { rps, cpuUs };
  }
  return best;
}

console.log(`proxy, memory store, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, best of ${ROUNDS}`);
for (const [name, extra] of [['cache hits', []], ['forwarded (no-cache)', ['-H', 'Cache-Control: no-cache']]] as const) {
  const { rps, cpuUs } = await measure([...extra]);
  console.log(`  ${name.padEnd(22)} ${rps.toFixed(0).padStart(7)} req/s   ${cpuUs.toFixed(1).padStart(7)} µs CPU per request (proxy + origin process)`);
}
await proxy.close();
origin.close();
