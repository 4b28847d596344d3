/**
 * Knobs of a benchmark run, read once from the command line and the environment so every
 * section agrees on them and the report can print exactly what produced its numbers.
 */

/** How much work each measurement does. */
export interface RunConfig {
  /** True for the smoke run (`--quick`): small counts, same code paths. */
  quick: boolean;
  /** Calls per phase run (a batch counts as one call). */
  nOps: number;
  /** Timed runs per phase; the median is reported. */
  kRuns: number;
  /** Keys per getMany / setMany call. */
  batch: number;
  /** Calls in flight in the concurrent mode. */
  concurrency: number;
  /** Timed runs per phase behind the delay proxy (cheaper: latency, not CPU, dominates there). */
  kRunsDelay: number;
  /**
   * Calls per phase run in the compression macro section: 14 KiB values compressed in plain
   * JavaScript are ~100× slower per call than the small ones, so half the calls (and fewer still
   * in a smoke run) keep the full suite under 15 minutes on 2 cores.
   */
  macroOps: number;
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** Resolves the run configuration; env knobs (N_OPS, K_RUNS, BATCH) win over the preset. */
export function readConfig(argv: readonly string[] = process.argv.slice(2)): RunConfig {
  const quick = argv.includes('--quick');
  const kRuns = intFromEnv('K_RUNS', quick ? 3 : 10);
  const nOps = intFromEnv('N_OPS', quick ? 200 : 1000);
  return {
    quick,
    nOps,
    kRuns,
    batch: intFromEnv('BATCH', 10),
    concurrency: intFromEnv('CONCURRENCY', 50),
    kRunsDelay: Math.min(kRuns, quick ? 1 : 5),
    macroOps: quick ? Math.min(nOps, 60) : Math.max(1, Math.floor(nOps / 2)),
  };
}
