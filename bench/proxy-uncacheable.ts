/**
 * Uncacheable URLs behind the caching proxy (issue 19, item 4: hit-for-miss). A 20 ms origin
 * answering `Cache-Control: no-store`, in a process of its own, is asked by wrk (-t2 -c50)
 * three ways, in interleaved rounds: directly; through `startProxy` for one URL (every request
 * the same path: without hit-for-miss they queue behind one another's origin calls); through
 * the proxy for a different URL per request (nothing to collapse). The proxy should come
 * within 0.9× of the origin asked directly, in req/s and in p50 latency, for one URL as for
 * many. A check first: 50 concurrent requests for a cacheable URL still make one origin call.
 * Loopback only, bounded in time (rounds × 3 × seconds); the origin process is stopped at the end.
 *
 *   npx tsx bench/proxy-uncacheable.ts              # 3 rounds of 8 s per case
 *   npx tsx bench/proxy-uncacheable.ts --quick      # 1 round of 2 s: a smoke run
 *   ROUNDS=5 SECONDS=8 npx tsx bench/proxy-uncacheable.ts
 */
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { memoryStore } from '../adapters/memory/index.ts';
import { startProxy } from '../products/proxy/index.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = Number(process.env.ROUNDS ?? (quick ? 1 : 3));
const SECONDS = Number(process.env.SECONDS ?? (quick ? 2 : 8));
const run = promisify(execFile);

try {
  await run('wrk', ['--version']).catch((error: { stdout?: string }) => {
    // wrk prints its version and exits 1: only a missing binary is a failure.
    if (!error.stdout?.includes('wrk')) throw error;
  });
} catch {
  console.error('bench/proxy-uncacheable.ts needs wrk (apt-get install wrk)');
  process.exit(1);
}

/**
 * The origin, as a plain node script in its own process (so that it never shares the proxy's
 * event loop): 20 ms, then `no-store`, except /cacheable (max-age=60); GET /calls?path=… says
 * how many requests a path has had.
 */
const ORIGIN = `
const { createServer } = require('node:http');
const calls = new Map();
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://origin');
  if (url.pathname === '/calls') return res.end(String(calls.get(url.searchParams.get('path')) ?? 0));
  calls.set(url.pathname, (calls.get(url.pathname) ?? 0) + 1);
  setTimeout(() => {
    const cacheControl = url.pathname === '/cacheable' ? 'max-age=60' : 'no-store';
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': cacheControl });
    res.end('{"account":"per request"}');
  }, 20);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Gives each wrk thread its own id, so that every request of the run has a path of its own. */
const DISTINCT_LUA = `
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) counter = 0 end
function request() counter = counter + 1; return wrk.format(nil, "/distinct/" .. id .. "-" .. counter) end
`;

interface Figures {
  rps: number;
  p50Ms: number;
}

/** One wrk run: requests per second and the median latency. */
async function wrk(url: string, extra: readonly string[] = []): Promise<Figures> {
  const { stdout } = await run('wrk', ['-t2', '-c50', `-d${SECONDS}s`, '--latency', ...extra, url], { timeout: (SECONDS + 30) * 1000 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p50 = /50%\s+([\d.]+)(us|ms|s)\b/.exec(stdout);
  if (!Number.isFinite(rps) || !p50) throw new Error(`wrk printed no figures:\n${stdout}`);
  const errors = /Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)/.exec(stdout);
  if (errors) console.log(`  (wrk reported: ${errors[0]})`);
  const scale = { us: 0.001, ms: 1, s: 1000 }[p50[2] as 'us' | 'ms' | 's'];
  return { rps, p50Ms: Number(p50[1]) * scale };
}

const origin = spawn(process.execPath, ['-e', ORIGIN], { stdio: ['ignore', 'pipe', 'inherit'] });
const originPort = await new Promise<number>((resolve, reject) => {
  origin.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  origin.once('exit', (code) => reject(new Error(`the origin exited with ${code}`)));
});
const originUrl = `http://127.0.0.1:${originPort}`;
const store = memoryStore();
const proxy = await startProxy({ origin: originUrl, store });
const lua = join(tmpdir(), `cachette-distinct-${process.pid}.lua`);
writeFileSync(lua, DISTINCT_LUA);

try {
  const concurrent = await Promise.all(Array.from({ length: 50 }, () => fetch(`${proxy.url}/cacheable`).then((r) => r.text())));
  const cacheableCalls = await (await fetch(`${originUrl}/calls?path=/cacheable`)).text();
  console.log(`collapsing: ${concurrent.length} concurrent requests for a cacheable URL → ${cacheableCalls} origin call(s)`);

  const cases: ReadonlyArray<[name: string, url: string, extra: readonly string[]]> = [
    ['origin directly', `${originUrl}/account`, []],
    ['proxy, one URL', `${proxy.url}/account`, []],
    ['proxy, distinct URLs', `${proxy.url}/`, ['-s', lua]],
  ];
  const results = new Map<string, Figures[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url, extra] of cases) results.get(name)!.push(await wrk(url, extra));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const direct = results.get('origin directly')!;
  const directRps = median(direct.map((f) => f.rps));
  const directP50 = median(direct.map((f) => f.p50Ms));
  console.log(
    `20 ms no-store origin, wrk -t2 -c50 -d${SECONDS}s, median of ${ROUNDS} interleaved rounds, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`  ${'case'.padEnd(22)} ${'req/s'.padStart(8)} ${'× direct'.padStart(9)} ${'p50 ms'.padStart(8)} ${'direct ÷'.padStart(9)}`);
  for (const [name] of cases) {
    const figures = results.get(name)!;
    const rps = median(figures.map((f) => f.rps));
    const p50 = median(figures.map((f) => f.p50Ms));
    // For latency, direct ÷ case: 1.0 is as fast as the origin asked directly, lower is slower.
    console.log(`  ${name.padEnd(22)} ${rps.toFixed(0).padStart(8)} ${(rps / directRps).toFixed(2).padStart(9)} ${p50.toFixed(1).padStart(8)} ${(directP50 / p50).toFixed(2).padStart(9)}`);
  }
} finally {
  await proxy.close();
  await store.close();
  origin.kill();
}
