import { cpus } from 'node:os';
import { intFromEnv } from '../support/config.ts';
import { TARGETS, type TargetId } from './plan.ts';

/** Knobs of one full-stack run, read once from the command line and the environment. */
export interface FullstackConfig {
  /** Smoke run (`--quick`): every row, seconds instead of minutes. */
  quick: boolean;
  /** Load before measuring, seconds (JIT, pools, caches warm up; not counted). */
  warmupS: number;
  /** The measured window of `/work` and `/page` rows, seconds. */
  measureS: number;
  /** Load after the warm-up on `/work` rows, seconds, the measured window included: RSS trend. */
  soakS: number;
  /** Idle time after the load before the "settled" sample, seconds. */
  settleS: number;
  /** wrk connections and threads. */
  connections: number;
  threads: number;
  /** Distinct page ids the hit rows cycle through. */
  pageKeys: number;
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
  const measureS = intFromEnv('FULLSTACK_MEASURE_S', quick ? 3 : 20);
  return {
    quick,
    warmupS: intFromEnv('FULLSTACK_WARMUP_S', quick ? 2 : 5),
    measureS,
    soakS: Math.max(measureS, intFromEnv('FULLSTACK_SOAK_S', quick ? 5 : 60)),
    settleS: intFromEnv('FULLSTACK_SETTLE_S', quick ? 1 : 5),
    // A smoke run checks that every row runs, not how fast: fewer connections keep latency
    // inside its short window on a busy machine.
    connections: intFromEnv('FULLSTACK_CONNECTIONS', quick ? 20 : 100),
    threads: intFromEnv('FULLSTACK_THREADS', 2),
    pageKeys: 100,
    serverCpus: pin ? String(cores - 1) : undefined,
    loadCpus: pin ? (cores === 2 ? '0' : `0-${cores - 2}`) : undefined,
    targets: runtimes ? known.filter((id) => runtimes.includes(id)) : known,
    only: only ? new Set(only) : undefined,
  };
}
