/**
 * `npx tsx bench/coherent/writes-ab.ts <treeA> <treeB> [rounds] [seconds] [loops]`: the full
 * stack's `/work` calls through cachette with the coherent L1, tree A against tree B (two
 * worktrees: main and a branch), and with no L1 from tree A as the baseline, on one throwaway
 * redis-server. Rounds alternate the order of the three variants; each window is a fresh process
 * (writes-worker.ts). Prints every window and, per variant, the median requests/s, its ratio to
 * the no-L1 baseline, CPU ms per request, bytes read from the store per request (which the
 * host's load does not change) and the store errors seen, with the load average.
 */
import { resolve } from 'node:path';
import { startOwnedRedis } from '../support/owned-redis.ts';
import { interleave, median } from './windows.ts';

const [a, b, roundsArg = '6', secondsArg = '3', loopsArg = '32'] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: writes-ab.ts <treeA> <treeB> [rounds] [seconds] [loops]');
interface Window {
  requests: number;
  seconds: number;
  cpuMsPerRequest: number;
  bytesPerRequest: number;
  failed: number;
  storeErrors: Record<string, number>;
}

const redis = await startOwnedRedis();
if (!redis) throw new Error('redis-server not found');
const variant = (name: string, root: string, mode: string) => ({ name, root: resolve(root), args: [resolve(root), mode, secondsArg, loopsArg, redis.url] });
const variants = [variant('A none', a, 'none'), variant('A coherent', a, 'coherent'), variant('B coherent', b, 'coherent')];
let run: Awaited<ReturnType<typeof interleave<Window>>>;
try {
  run = await interleave<Window>(
    'writes-worker.ts',
    variants,
    Number(roundsArg),
    (w) =>
      `${(w.requests / w.seconds).toFixed(0)} req/s, ${w.cpuMsPerRequest.toFixed(2)} CPU ms/req, ${(w.bytesPerRequest / 1024).toFixed(1)} KiB read/req, failed ${w.failed}, store errors ${JSON.stringify(w.storeErrors)}`,
  );
} finally {
  await redis.stop();
}
const { results, loads } = run;
const rate = (name: string) => median(results.get(name)!.map((w) => w.requests / w.seconds));
const cpu = (name: string) => median(results.get(name)!.map((w) => w.cpuMsPerRequest));
const kib = (name: string) => median(results.get(name)!.map((w) => w.bytesPerRequest / 1024));
const base = rate('A none');
for (const v of variants) {
  const ws = results.get(v.name)!;
  console.log(
    `${v.name}: median ${rate(v.name).toFixed(0)} req/s (${(rate(v.name) / base).toFixed(2)}× A none), ${cpu(v.name).toFixed(2)} CPU ms/req (${(cpu(v.name) / cpu('A none')).toFixed(2)}× A none), ${kib(v.name).toFixed(1)} KiB read/req, failed ${ws.reduce((n, w) => n + w.failed, 0)}, store errors ${ws.reduce((n, w) => n + Object.values(w.storeErrors).reduce((x, y) => x + y, 0), 0)}`,
  );
}
console.log(`load average during the windows: ${Math.min(...loads).toFixed(2)} – ${Math.max(...loads).toFixed(2)}`);
