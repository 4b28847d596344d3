import { cpus } from 'node:os';
import { intFromEnv } from '../support/config.ts';
import { TARGETS, type TargetId } from './plan.ts';

/** Knobs of one full-stack run, read once from the command line and the environment. */
export interface FullstackConfig {
  /** Smoke run (`--quick`): every row, one-second windows, two rounds. */
  quick: boolean;
  /** Length of one measured window, seconds. */
  windowS: number;
  /**
   * Measured windows per `/work` row. The rows of a target take turns, one window each per
   * round (the order reversed every other round), and each row's figure is the median of its
   * windows: whatever slows the machine for a while hits every row of that round alike.
   */
  rounds: number;
  /** Measured windows per `/page` row (the first `pageRounds` rounds). */
  pageRounds: number;
  /** Warm-up: one-second loads until two in a row agree within `warmupTolerance`, at least `warmupMinS`, at most `warmupMaxS`. */
  warmupMinS: number;
  warmupMaxS: number;
  /** Largest relative difference between two one-second rates that counts as stable. */
  warmupTolerance: number;
  /** wrk connections and threads. */
  connections: number;
  threads: number;
  /** Distinct page ids the hit rows cycle through. */
  pageKeys: number;
  /** Servers started at once when a target begins (starting is CPU-bound: more only queue). */
  startConcurrency: number;
  /** CPU of the server, and of wrk + redis-server + the bridge (taskset lists); undefined: unpinned. */
  serverCpus: string | undefined;
  loadCpus: string | undefined;
  /** Targets to run (`--runtime node,bun`), in plan order. */
  targets: TargetId[];
  /** Contender ids and page kinds to run (`--contender cachette,iovalkey`); undefined: all. */
  only: Set<string> | undefined;
}

function listArg(argv: readonly string[], flag: string): string[] | undefined {
  const at = argv.indexOf(flag);
  if (at < 0) return undefined;
  const value = argv[at + 1];
  if (!value || value.startsWith('--')) throw new TypeError(`${flag} needs a comma-separated list`);
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Resolves the configuration; unknown runtimes are an error naming the known ones. */
export function readFullstackConfig(argv: readonly string[]): FullstackConfig {
  const quick = argv.includes('--quick');
  const known = TARGETS.map((t) => t.id);
  const runtimes = listArg(argv, '--runtime');
  for (const r of runtimes ?? []) if (!known.includes(r as TargetId)) throw new TypeError(`unknown runtime "${r}"; known: ${known.join(', ')}`);
  const only = listArg(argv, '--contender');
  // Two cores or more: the server on the last one, load and store on the others.
  const cores = cpus().length;
  const pin = cores >= 2 && process.env.FULLSTACK_NO_PIN !== '1';
  const rounds = intFromEnv('FULLSTACK_ROUNDS', quick ? 2 : 5);
  const warmupMinS = intFromEnv('FULLSTACK_WARMUP_MIN_S', quick ? 1 : 2);
  return {
    quick,
    windowS: intFromEnv('FULLSTACK_WINDOW_S', quick ? 1 : 2),
    rounds,
    pageRounds: Math.min(rounds, intFromEnv('FULLSTACK_PAGE_ROUNDS', quick ? 1 : 3)),
    warmupMinS,
    warmupMaxS: Math.max(warmupMinS, intFromEnv('FULLSTACK_WARMUP_MAX_S', quick ? 2 : 5)),
    warmupTolerance: 0.1,
    // A smoke run checks that every row runs, not how fast: fewer connections keep latency
    // inside its one-second windows on a busy machine.
    connections: intFromEnv('FULLSTACK_CONNECTIONS', quick ? 20 : 100),
    threads: intFromEnv('FULLSTACK_THREADS', 2),
    pageKeys: 100,
    startConcurrency: 4,
    serverCpus: pin ? String(cores - 1) : undefined,
    loadCpus: pin ? (cores === 2 ? '0' : `0-${cores - 2}`) : undefined,
    targets: runtimes ? known.filter((id) => runtimes.includes(id)) : known,
    only: only ? new Set(only) : undefined,
  };
}
