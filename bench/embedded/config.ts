/** How much work each section of the embedded benchmark does: the counts, or a smoke run. */

/** One value-size row: `sets` writes then as many reads over `keys` keys. */
export interface SizeConfig {
  size: number;
  sets: number;
  keys: number;
}

/** Every count of a run, recorded in the results so the report can say what produced them. */
export interface EmbeddedConfig {
  quick: boolean;
  mixOps: number;
  mixWarmup: number;
  sizes: SizeConfig[];
  hitKeys: number;
  hitGets: number;
  hitTargets: number[];
  /** Calls per process in the concurrency section. */
  processOps: number;
  processCounts: number[];
  /** Interleaved rounds of the store ÷ raw better-sqlite3 comparison (classic mix). */
  ratioRounds: number;
  /** Interleaved rounds of the write-heavy processes comparison. */
  writeHeavyRounds: number;
}

/** The workloads (full) or a run of a few seconds per contender (`--quick`). */
export function embeddedConfig(quick: boolean): EmbeddedConfig {
  const scale = (n: number) => (quick ? Math.max(10, Math.round(n / 20)) : n);
  return {
    quick,
    mixOps: scale(100_000),
    mixWarmup: scale(1_000),
    sizes: [
      { size: 100, sets: scale(20_000), keys: 1_000 },
      { size: 8 * 1024, sets: scale(20_000), keys: 1_000 },
      { size: 64 * 1024, sets: scale(4_000), keys: 500 },
      { size: 1024 * 1024, sets: scale(400), keys: 50 },
    ],
    hitKeys: scale(100_000),
    hitGets: scale(100_000),
    hitTargets: [0.95, 0.5],
    processOps: scale(50_000),
    processCounts: [1, 2, 4],
    ratioRounds: quick ? 2 : 5,
    writeHeavyRounds: quick ? 1 : 3,
  };
}
