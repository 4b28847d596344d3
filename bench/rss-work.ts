/**
 * What a server process holds in memory while it runs `GET /work`'s six calls (get 150 B,
 * getMany 10, set 150 B, set of a ~14 KiB JSON document, incr, get of that document; see
 * bench/fullstack/app/workload.ts) without HTTP: cachette over valkey against raw iovalkey and
 * node-redis with the same calls, each contender alone in a child process, `IN_FLIGHT` rounds
 * in flight, for `ROUNDS` rounds. Every child samples its RSS, heap and ArrayBuffers every
 * 100 ms and reports the peak and the level it settles at (the median of the last half), so
 * that the difference to the raw client is what the library holds, not what the load does.
 *
 *   npx tsx bench/rss-work.ts [--quick]        (REDIS_URL to reuse a server)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cachetteSpec } from './contenders/cachette.ts';
import { iovalkeySpec } from './contenders/iovalkey.ts';
import { nodeRedisSpec } from './contenders/node-redis.ts';
import type { ContenderSpec } from './contenders/types.ts';
import { doWork, prefill, randomParams } from './fullstack/app/workload.ts';
import { openServer } from './support/server.ts';
import { median } from './support/stats.ts';

const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 100);
const MiB = 1024 * 1024;

/** What one child measured, in MiB (rounds/s for the rate). */
interface Memory {
  id: string;
  label: string;
  roundsPerSec: number;
  /** Process CPU per round, µs. */
  cpuUsPerRound: number;
  rssPeak: number;
  rssSettled: number;
  heapSettled: number;
  arrayBuffersSettled: number;
  externalSettled: number;
}

const specs: ContenderSpec[] = [cachetteSpec({ id: 'cachette-valkey', label: 'cachette (valkey, defaults)', store: 'valkey' }), iovalkeySpec(false), nodeRedisSpec];

/** The child: runs the rounds against one contender and prints one line of JSON. */
async function child(id: string, url: string, rounds: number): Promise<void> {
  const spec = specs.find((s) => s.id === id)!;
  const contender = await spec.open(url);
  await prefill(contender);
  const samples: Array<NodeJS.MemoryUsage> = [];
  const timer = setInterval(() => samples.push(process.memoryUsage()), 100);
  let left = rounds;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left-- > 0) await doWork(contender, randomParams());
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(timer);
  await contender.close();
  const settled = samples.slice(Math.floor(samples.length / 2));
  const level = (pick: (m: NodeJS.MemoryUsage) => number) => median(settled.map(pick)) / MiB;
  const memory: Memory = {
    id,
    label: spec.label,
    roundsPerSec: rounds / seconds,
    cpuUsPerRound: (cpu.user + cpu.system) / rounds,
    rssPeak: Math.max(...samples.map((m) => m.rss)) / MiB,
    rssSettled: level((m) => m.rss),
    heapSettled: level((m) => m.heapUsed),
    arrayBuffersSettled: level((m) => m.arrayBuffers),
    externalSettled: level((m) => m.external),
  };
  console.log(JSON.stringify(memory));
}

/** Runs one child with the same runtime and loader as this process. */
function runChild(id: string, url: string, rounds: number): Promise<Memory> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', id, url, String(rounds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Memory) : reject(new Error(`${id} exited with ${code}`))));
  });
}

const at = process.argv.indexOf('--child');
if (at > 0) {
  await child(process.argv[at + 1]!, process.argv[at + 2]!, Number(process.argv[at + 3]));
} else {
  const quick = process.argv.includes('--quick');
  const rounds = quick ? 5_000 : 30_000;
  const server = await openServer();
  const results: Memory[] = [];
  try {
    // Interleaved: the machine's load moves between runs, so each contender runs in every pass.
    for (let pass = 0; pass < (quick ? 1 : 2); pass++) {
      for (const spec of specs) {
        await server.monitor.flush();
        results.push(await runChild(spec.id, server.url, rounds));
      }
    }
  } finally {
    await server.stop();
  }
  console.log(
    `redis ${server.version}, Node ${process.version}${process.execArgv.length ? ` (${process.execArgv.join(' ')})` : ''}; /work's six calls, ${IN_FLIGHT} rounds in flight, ${rounds.toLocaleString('en-US')} rounds\n`,
  );
  console.log('| contender (one row per pass) | rounds/s | CPU µs/round | RSS peak MiB | RSS settled MiB | heap MiB | ArrayBuffers MiB | external MiB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const m of results) {
    console.log(
      `| ${m.label} | ${Math.round(m.roundsPerSec).toLocaleString('en-US')} | ${Math.round(m.cpuUsPerRound)} | ${m.rssPeak.toFixed(1)} | ${m.rssSettled.toFixed(1)} | ${m.heapSettled.toFixed(1)} | ${m.arrayBuffersSettled.toFixed(1)} | ${m.externalSettled.toFixed(1)} |`,
    );
  }
}
