/**
 * Issue 19's figures for the SQLite store: its p50s over raw better-sqlite3's in the classic
 * mix, `cache.get` over the store's get, and 1, 2 and 4 processes on one file on a write-heavy
 * mix. Contenders alternate within every round and their order rotates from round to round, so
 * a load that drifts over the run (the machine is shared) weighs on each of them alike; the
 * figures are medians over the rounds.
 */
import type { ProcessesResult } from './processes.ts';
import type { MixResult } from './workloads.ts';

/** The classic mix's contenders in this section: the baseline, the store, the store through the cache. */
export const SIDE_BY_SIDE = ['raw-sqlite', 'sqlite', 'sqlite-cache'] as const;
/** The write-heavy processes section's contenders. */
export const WRITE_HEAVY = ['raw-sqlite', 'sqlite'] as const;

/** p50 ratios of one operation. */
export interface OpRatios {
  get: number;
  set: number;
  delete: number;
}

/** The classic mix in interleaved rounds. */
export interface SideBySideResult {
  /** Per round, each contender's mix result. */
  rounds: Array<Record<string, MixResult | undefined>>;
  /** Median over rounds of store p50 ÷ raw p50, per operation. */
  storeOverRaw?: OpRatios;
  /** Median over rounds of (cache get p50 − store get p50), µs. */
  cacheGetOverStoreUs?: number;
}

/** The write-heavy mix at each process count, in interleaved rounds. */
export interface WriteHeavyResult {
  /** Per round, per contender, per process count. */
  rounds: Array<Record<string, Record<number, ProcessesResult | undefined>>>;
  /** Median over rounds of ops/s together at n processes ÷ at 1, per contender and n. */
  scaling: Record<string, Record<number, number | undefined>>;
  /** Median over rounds of ops/s together, per contender and n. */
  opsPerSec: Record<string, Record<number, number | undefined>>;
}

/** The middle value (upper middle for an even count); undefined for none. */
export function median(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  return known.length ? known[Math.floor(known.length / 2)] : undefined;
}

/** The order of `ids` in round `round`: rotated by one each round. */
export function rotation<T>(ids: readonly T[], round: number): T[] {
  const shift = round % ids.length;
  return [...ids.slice(shift), ...ids.slice(0, shift)];
}

/** Ratios and differences from the rounds of the classic mix. */
export function summariseSideBySide(rounds: SideBySideResult['rounds']): SideBySideResult {
  const over = (op: keyof OpRatios) => median(rounds.map((r) => (r.sqlite && r['raw-sqlite'] ? r.sqlite[op].p50 / r['raw-sqlite'][op].p50 : undefined)));
  const [get, set, remove] = [over('get'), over('set'), over('delete')];
  const cacheGetOverStoreUs = median(rounds.map((r) => (r.sqlite && r['sqlite-cache'] ? r['sqlite-cache'].get.p50 - r.sqlite.get.p50 : undefined)));
  return {
    rounds,
    ...(get !== undefined && set !== undefined && remove !== undefined ? { storeOverRaw: { get, set, delete: remove } } : {}),
    ...(cacheGetOverStoreUs !== undefined ? { cacheGetOverStoreUs } : {}),
  };
}

/** Scaling from the rounds of the write-heavy mix. */
export function summariseWriteHeavy(rounds: WriteHeavyResult['rounds'], counts: readonly number[]): WriteHeavyResult {
  const scaling: WriteHeavyResult['scaling'] = {};
  const opsPerSec: WriteHeavyResult['opsPerSec'] = {};
  for (const id of WRITE_HEAVY) {
    scaling[id] = {};
    opsPerSec[id] = {};
    for (const n of counts) {
      opsPerSec[id][n] = median(rounds.map((r) => r[id]?.[n]?.opsPerSec));
      scaling[id][n] = median(
        rounds.map((r) => {
          const one = r[id]?.[1]?.opsPerSec;
          const many = r[id]?.[n]?.opsPerSec;
          return one && many ? many / one : undefined;
        }),
      );
    }
  }
  return { rounds, scaling, opsPerSec };
}
