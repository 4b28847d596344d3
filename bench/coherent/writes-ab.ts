/**
 * `npx tsx bench/coherent/writes-ab.ts <treeA> <treeB> [rounds] [seconds] [loops]`: the full
 * stack's `/work` calls through cachette with the coherent L1, tree A against tree B (two
 * worktrees: main and a branch), and with no L1 from tree A as the baseline, on one throwaway
 * redis-server. Rounds alternate the order of the three variants; each window is a fresh process
 * (writes-worker.ts). Prints every window and, per variant, the median requests/s, its ratio to
 * the no-L1 baseline, CPU ms per request and the store errors seen, with the load average.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startOwnedRedis } from '../support/owned-redis.ts';

const [a, b, roundsArg = '6', secondsArg = '3', loopsArg = '32'] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: writes-ab.ts <treeA> <treeB> [rounds] [seconds] [loops]');
const variants = [
  { name: 'A none', root: resolve(a), mode: 'none' },
  { name: 'A coherent', root: resolve(a), mode: 'coherent' },
  { name: 'B coherent', root: resolve(b), mode: 'coherent' },
];
interface Window {
  requests: number;
  seconds: number;
  cpuMsPerRequest: number;
  failed: number;
  storeErrors: Record<string, number>;
}

function window(root: string, mode: string, url: string): Promise<Window> {
  return new Promise((done, fail) => {
    const worker = resolve(import.meta.dirname, 'writes-worker.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', worker, root, mode, secondsArg, loopsArg, url], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out.trim().split('\n').pop()!) as Window) : fail(new Error(`window exited with ${code}`))));
  });
}

const redis = await startOwnedRedis();
if (!redis) throw new Error('redis-server not found');
const results = new Map<string, Window[]>(variants.map((v) => [v.name, []]));
const loads: number[] = [];
try {
  for (let round = 0; round < Number(roundsArg); round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) {
      const w = await window(v.root, v.mode, redis.url);
      loads.push(loadavg()[0]!);
      results.get(v.name)!.push(w);
      console.log(
        `round ${round} ${v.name}: ${(w.requests / w.seconds).toFixed(0)} req/s, ${w.cpuMsPerRequest.toFixed(2)} CPU ms/req, failed ${w.failed}, store errors ${JSON.stringify(w.storeErrors)}, load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
} finally {
  await redis.stop();
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const rate = (name: string) => median(results.get(name)!.map((w) => w.requests / w.seconds));
const base = rate('A none');
for (const v of variants) {
  const ws = results.get(v.name)!;
  console.log(
    `${v.name}: median ${rate(v.name).toFixed(0)} req/s (${(rate(v.name) / base).toFixed(2)}× A none), ${median(ws.map((w) => w.cpuMsPerRequest)).toFixed(2)} CPU ms/req, failed ${ws.reduce((n, w) => n + w.failed, 0)}, store errors ${ws.reduce((n, w) => n + Object.values(w.storeErrors).reduce((x, y) => x + y, 0), 0)}`,
  );
}
console.log(`load average during the windows: ${Math.min(...loads).toFixed(2)} – ${Math.max(...loads).toFixed(2)}`);
