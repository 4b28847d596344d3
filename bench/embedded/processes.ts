/**
 * The concurrency section: 1, 2 and 4 processes running the classic mix at once on one shared
 * directory (one SQLite file, one LMDB environment). Aggregate throughput is every process's
 * calls over the wall time from the first start to the last end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MixResult, MixShares } from './workloads.ts';

const WORKER = join(import.meta.dirname, 'process-worker.ts');

/** One process count for one contender. */
export interface ProcessesResult {
  processes: number;
  /** Calls made by each process. */
  opsPerProcess: number;
  /** Calls per second of all processes together. */
  opsPerSec: number;
  /** Each process's own result. */
  perProcess: MixResult[];
}

function runWorker(job: object, onReady: () => void): Promise<{ startedAt: number; endedAt: number; result: MixResult }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let ready = false;
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (!ready && out.includes('ready\n')) {
      ready = true;
      onReady();
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as { startedAt: number; endedAt: number; result: MixResult });
      else reject(new Error(`worker for ${JSON.stringify(job)} exited with ${code ?? signal}: ${err.slice(-2000)}`));
    });
  });
}

/** Runs `count` processes of contender `id` on `dir` together, `ops` calls each of the mix `shares` (default: the classic mix). */
export async function runProcesses(id: string, dir: string, count: number, ops: number, warmup: number, shares?: MixShares): Promise<ProcessesResult> {
  mkdirSync(dir, { recursive: true });
  const goFile = join(dir, 'go');
  let readyCount = 0;
  let allReady!: () => void;
  const ready = new Promise<void>((r) => (allReady = r));
  const runs = Array.from({ length: count }, (_, i) =>
    runWorker({ contender: id, dir, goFile, ops, warmup, seed: 1000 + i, ...(shares ? { shares } : {}) }, () => ++readyCount === count && allReady()),
  );
  // A worker that fails before "ready" rejects its run; do not wait for the others then.
  await Promise.race([ready, Promise.all(runs)]);
  writeFileSync(goFile, '');
  const done = await Promise.all(runs);
  const wallMs = Math.max(...done.map((d) => d.endedAt)) - Math.min(...done.map((d) => d.startedAt));
  return { processes: count, opsPerProcess: ops, opsPerSec: Math.round((count * ops) / (wallMs / 1000)), perProcess: done.map((d) => d.result) };
}
