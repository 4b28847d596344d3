/**
 * What compression costs a Worker: raw DEFLATE through fflate (plain JavaScript), through
 * workerd's native node:zlib (`nodejs_compat`, reached as src/codec/compression.ts reaches it)
 * and through `CompressionStream('deflate-raw')`, on the /work mix's values; then cache.set +
 * cache.get over the upstash store and the local bridge with compression off, on through
 * fflate and on through native zlib, on values from ~150 B to the ~14 KiB document, with the
 * bytes each entry takes on the wire.
 *
 *   npx tsx bench/compression/workerd.ts        ROUNDS=5 by default
 *   HTTP_ONLY=1 HTTP_MODES=off,native npx tsx bench/compression/workerd.ts    the second part only, some modes
 *
 * A Worker's clock stands still while it computes, so CPU is read from outside: the workerd
 * process's scheduler time (/proc/PID/task/X/schedstat, nanoseconds) around each request that
 * repeats one operation n times. Variants take turns, round by round; figures are medians.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { spawnBridge } from '../../test/support/bridge-process.ts';
import { openServer } from '../support/server.ts';
import { median } from '../support/stats.ts';

process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** Scheduler CPU time, in ns, of every thread of every process named workerd under this one. */
function workerdCpuNs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (comm !== 'workerd' || ppid !== process.pid) continue;
      for (const task of readdirSync(`/proc/${pid}/task`)) total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  return total;
}

const server = await openServer();
const bridge = await spawnBridge(server.url);
const dir = mkdtempSync(join(tmpdir(), 'cachette-zbench-'));
let mf: Miniflare | undefined;
try {
  const script = join(dir, 'worker.js');
  await build({
    entryPoints: [new URL('./workerd-worker.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker'],
    target: 'es2022',
    outfile: script,
    logLevel: 'error',
  });
  mf = new Miniflare({
    modules: true,
    modulesRoot: dir,
    scriptPath: script,
    compatibilityDate: '2026-04-01',
    compatibilityFlags: ['nodejs_compat'],
    bindings: { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token },
  });
  const call = async (path: string): Promise<{ cpuUs: number; body: Record<string, unknown> }> => {
    const before = workerdCpuNs();
    const response = await mf!.dispatchFetch(`http://bench${path}`);
    const text = await response.text();
    const cpuUs = (workerdCpuNs() - before) / 1000;
    if (!response.ok) throw new Error(`${path}: ${text}`);
    return { cpuUs, body: JSON.parse(text) as Record<string, unknown> };
  };
  console.log(
    `probe: ${JSON.stringify((await call('/probe')).body)}; workerd, nodejs_compat; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  type Case = { label: string; path: string; n: number };
  const report = async (title: string, cases: Case[], extra: (body: Record<string, unknown>) => string) => {
    const samples = new Map<string, number[]>();
    const bodies = new Map<string, Record<string, unknown>>();
    for (const c of cases) await call(`${c.path}&n=${Math.max(1, Math.floor(c.n / 10))}`); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) {
        const { cpuUs, body } = await call(`${c.path}&n=${c.n}`);
        samples.set(c.label, [...(samples.get(c.label) ?? []), cpuUs / c.n]);
        bodies.set(c.label, body);
      }
    }
    console.log(
      `\n${title} (workerd CPU µs per op, median of ${ROUNDS}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
    for (const c of cases) console.log(`  ${c.label.padEnd(34)} ${median(samples.get(c.label)!).toFixed(1).padStart(8)} µs   ${extra(bodies.get(c.label)!)}`);
  };

  const micro: Case[] = [];
  if (process.env.HTTP_ONLY !== '1') {
    for (const payload of ['doc', 'small'])
      for (const impl of ['fflate', 'native', 'stream']) micro.push({ label: `${payload} ${impl}`, path: `/micro?impl=${impl}&payload=${payload}`, n: payload === 'doc' ? 400 : 2000 });
    await report('compress + decompress', micro, (b) => `${b.inputBytes} B → ${b.packedBytes} B`);
  }
  const modes = (process.env.HTTP_MODES ?? 'off,fflate,native').split(',');

  const http: Case[] = [];
  for (const payload of ['small', 'rows3', 'rows6', 'rows13', 'rows26', 'rows52', 'doc'])
    for (const mode of modes) http.push({ label: `${payload} ${mode}`, path: `/http?mode=${mode}&payload=${payload}`, n: 200 });
  await report('cache.set + cache.get over the upstash store (HTTP on loopback)', http, (b) => `entry ${b.storedBytes} B`);
} finally {
  // A Worker that failed to start fails dispose() too: the bridge and redis-server still stop.
  await mf?.dispose().catch(() => {});
  await bridge.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
