import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJsonChild } from '../support/child-process.ts';
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
}

/** A child's result; `memoryPerKey` when asked for. */
export type ChildResult = ContenderResult & { memoryPerKey?: number };

/** Where the compiled bench lives (see bench/tsconfig.build.json and support/build.ts). */
const compiled = join(dirname(fileURLToPath(import.meta.url)), '..', '.build', 'bench', 'phases', 'child.js');

/**
 * Runs `job` in a fresh Node process on the compiled bench, pinned to `cpu` with taskset when
 * given (the server is pinned to another), and returns what it measured.
 */
export function runPhasesInChild(job: ChildJob, cpu: number | undefined, onLine?: (line: string) => void): Promise<ChildResult> {
  return runJsonChild<ChildResult>(compiled, [JSON.stringify(job)], cpu, onLine);
}
