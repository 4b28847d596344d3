import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJsonChild, type ChildRuntime } from '../support/child-process.ts';
import type { PhaseName } from '../contenders/types.ts';
import type { ContenderResult } from './run-phases.ts';

/** What a benchmark child runs: one contender, one mode, on one server. */
export interface ChildJob {
  contender: string;
  url: string;
  n: number;
  kRuns: number;
  batch: number;
  concurrency: number;
  /** The ~150-byte object, or the ~14 KiB rows. */
  payload: 'small' | 'rows';
  /** Also report MEMORY USAGE of one stored entry (cachette contenders). */
  memoryUsage?: boolean;
  /** Only these phases (all by default). */
  only?: PhaseName[];
}

/** A child's result; `memoryPerKey` when asked for. */
export type ChildResult = ContenderResult & { memoryPerKey?: number };

/** Where the compiled bench lives (see bench/tsconfig.build.json and support/build.ts). */
const compiled = join(dirname(fileURLToPath(import.meta.url)), '..', '.build', 'bench', 'phases', 'child.js');

/**
 * Runs `job` in a fresh process (Node by default, or Bun, or Deno) on the compiled bench, pinned
 * to `cpu` with taskset when given (the server is pinned to another), and returns what it measured.
 */
export function runPhasesInChild(job: ChildJob, cpu: number | undefined, onLine?: (line: string) => void, runtime: ChildRuntime = 'node'): Promise<ChildResult> {
  return runJsonChild<ChildResult>(compiled, [JSON.stringify(job)], cpu, onLine, runtime);
}
