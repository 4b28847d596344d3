/**
 * One process of the concurrency section: opens a contender on the shared directory, says
 * "ready", waits for the go file so that every process starts together, runs the classic mix
 * and prints one JSON line: its result and when it started and ended (ms since the epoch).
 * Argument: JSON { contender, dir, goFile, ops, warmup, seed, shares? }.
 */
import { existsSync } from 'node:fs';
import { contender } from './contenders.ts';
import { classicMix, type MixShares } from './workloads.ts';

const job = JSON.parse(process.argv[process.argv.length - 1]!) as { contender: string; dir: string; goFile: string; ops: number; warmup: number; seed: number; shares?: MixShares };
const spec = contender(job.contender);
const kv = await spec.open(job.dir, {});
console.log('ready');
while (!existsSync(job.goFile)) await new Promise((r) => setTimeout(r, 2));
const now = () => performance.timeOrigin + performance.now();
const startedAt = now();
// Other processes write the same keys: what a read returns cannot be predicted, so no checks.
const result = await classicMix(kv, spec.takes, { ops: job.ops, warmup: job.warmup, seed: job.seed, check: false, ...(job.shares ? { shares: job.shares } : {}) });
const endedAt = now();
await kv.close();
console.log(JSON.stringify({ startedAt, endedAt, result }));
