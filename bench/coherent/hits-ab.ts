/**
 * `npx tsx bench/coherent/hits-ab.ts <treeA> <treeB> [rounds] [seconds]`: the CPU of one hit of
 * a held key (hits-worker.ts: `getOrSet` awaited in a tight loop), tree A against tree B, with
 * the coherent L1, the strict L1 (one confirming round trip), no L1 (a round trip) and the
 * memory store (no server at all) beside it, on one throwaway redis-server. Rounds rotate the
 * order; each window is a fresh process. Prints every window and, per variant, the median CPU
 * µs per hit and its ratio to tree A's no-L1 hit, with the load average.
 */
import { resolve } from 'node:path';
import { startOwnedRedis } from '../support/owned-redis.ts';
import { interleave, median } from './windows.ts';

const [a, b, roundsArg = '4', secondsArg = '2'] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: hits-ab.ts <treeA> <treeB> [rounds] [seconds]');
interface Window {
  hits: number;
  seconds: number;
  cpuUsPerHit: number;
  fills: number;
}

const redis = await startOwnedRedis();
if (!redis) throw new Error('redis-server not found');
const variant = (name: string, root: string, mode: string) => ({ name, root: resolve(root), args: [resolve(root), mode, secondsArg, redis.url] });
const variants = [
  variant('A none', a, 'none'),
  variant('A strict', a, 'strict'),
  variant('A memory', a, 'memory'),
  variant('A coherent', a, 'coherent'),
  variant('B coherent', b, 'coherent'),
  variant('B none', b, 'none'),
];
let run: Awaited<ReturnType<typeof interleave<Window>>>;
try {
  run = await interleave<Window>('hits-worker.ts', variants, Number(roundsArg), (w) => `${(w.hits / w.seconds).toFixed(0)} hits/s, ${w.cpuUsPerHit.toFixed(2)} CPU µs/hit, fills ${w.fills}`);
} finally {
  await redis.stop();
}
const { results, loads } = run;
const cpu = (name: string) => median(results.get(name)!.map((w) => w.cpuUsPerHit));
for (const v of variants) {
  const fills = results.get(v.name)!.reduce((n, w) => n + w.fills, 0);
  console.log(`${v.name}: median ${cpu(v.name).toFixed(2)} CPU µs/hit (${(cpu(v.name) / cpu('A none')).toFixed(3)}× A none), fills ${fills}`);
}
console.log(`load average during the windows: ${Math.min(...loads).toFixed(2)} – ${Math.max(...loads).toFixed(2)}`);
