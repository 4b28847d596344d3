/**
 * Client instructions per call, counted by callgrind rather than timed: repeatable on a machine
 * shared with other work, where CPU time per call moves with everything else that runs. Each
 * contender runs each phase twice under `valgrind --tool=callgrind` (bench/phases/instructions-
 * child.ts), with two call counts; the difference of the totals, divided by the difference of
 * the counts, is what one call costs the client process (every thread of it: V8's GC too).
 *
 *   npx tsx bench/phases/instructions.ts [--contenders a,b] [--phases get,set] [--concurrency 50] [--calls 2000,6000]
 *
 * Needs valgrind; compiles the bench first (bench/.build), starts its own redis-server.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PHASES, type PhaseName } from '../contenders/types.ts';
import { buildBench } from '../support/build.ts';
import { openServer } from '../support/server.ts';
import type { InstructionJob } from './instructions-child.ts';

const compiled = join(dirname(fileURLToPath(import.meta.url)), '..', '.build', 'bench', 'phases', 'instructions-child.js');

/** Total instructions callgrind counted for one run of the child. */
function countInstructions(job: InstructionJob, cpu: number | undefined): Promise<number> {
  const argv = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, compiled, JSON.stringify(job)];
  const [command, ...rest] = cpu === undefined ? argv : ['taskset', '-c', String(cpu), ...argv];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const collected = /Collected : (\d+)/.exec(err);
      if (code === 0 && collected) resolve(Number(collected[1]));
      else reject(new Error(`callgrind run of ${job.contender}/${job.phase} exited with ${code}:\n${err.slice(-1500)}`));
    });
  });
}

const value = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : process.argv[at + 1];
};

async function main(): Promise<void> {
  const contenders = (value('contenders') ?? 'cachette-valkey,node-redis,iovalkey').split(',');
  const phases = (value('phases')?.split(',') ?? [...PHASES]) as PhaseName[];
  const concurrency = Number(value('concurrency') ?? 50);
  const [small, large] = (value('calls') ?? '2000,6000').split(',').map(Number) as [number, number];
  buildBench();
  const pinned = cpus().length >= 2;
  const server = await openServer(pinned ? 0 : undefined);
  const load = loadavg();
  const rows = new Map<PhaseName, Map<string, number>>();
  try {
    for (const phase of phases) {
      rows.set(phase, new Map());
      for (const contender of contenders) {
        const job = { contender, url: server.url, phase, concurrency, warmup: 2000 };
        const [a, b] = [await countInstructions({ ...job, calls: small }, pinned ? 1 : undefined), await countInstructions({ ...job, calls: large }, pinned ? 1 : undefined)];
        const perCall = (b - a) / (large - small);
        rows.get(phase)!.set(contender, perCall);
        console.error(`${phase} ${contender}: ${Math.round(perCall).toLocaleString('en-US')} instructions per call`);
      }
    }
  } finally {
    await server.stop();
  }
  console.log(`\nclient instructions per call, ${concurrency} in flight (callgrind, ${large} − ${small} calls); load average ${load.map((l) => l.toFixed(2)).join(' ')}\n`);
  console.log(`| phase | ${contenders.join(' | ')} | ${contenders[0]} ÷ ${contenders[1]} |`);
  console.log(`|---|${contenders.map(() => '---:').join('|')}|---:|`);
  for (const [phase, byContender] of rows) {
    const cells = contenders.map((c) => Math.round(byContender.get(c)!).toLocaleString('en-US'));
    console.log(`| ${phase} | ${cells.join(' | ')} | ${(byContender.get(contenders[0]!)! / byContender.get(contenders[1]!)!).toFixed(2)}× |`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
