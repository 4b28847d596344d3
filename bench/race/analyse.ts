/**
 * The race bench's verdicts, pure: a read is stale when it returned a version older than one
 * whose COMMIT had returned before the read began.
 */

/** What one run measured. */
export interface RaceFigures {
  reads: number;
  /** Stale reads per 1,000 reads. */
  stalePerThousand: number;
  /** Distinct superseded versions that were served at least once after being superseded. */
  episodes: number;
  /** 1 − source loads / reads. */
  hitRatio: number;
  readsPerSecond: number;
  /** The median read's duration, µs (mostly hits: see hitRatio). */
  readP50Us: number;
}

/**
 * `commits[i]` is when the COMMIT of version i + 1 returned (version 0 is the row's first);
 * `reads` are flat pairs (began at, version returned) from every reader; `loads` how many
 * reads went to the source; `durationMs` the run's length.
 */
export function analyse(commits: readonly number[], reads: readonly number[], loads: number, durationMs: number, tookUs: readonly number[] = []): RaceFigures {
  const count = reads.length / 2;
  let stale = 0;
  const staleVersions = new Set<number>();
  for (let i = 0; i < reads.length; i += 2) {
    const expected = committedBefore(commits, reads[i]!);
    const version = reads[i + 1]!;
    if (version < expected) {
      stale++;
      staleVersions.add(version);
    }
  }
  return {
    reads: count,
    stalePerThousand: count === 0 ? 0 : (stale * 1000) / count,
    episodes: staleVersions.size,
    hitRatio: count === 0 ? 0 : 1 - loads / count,
    readsPerSecond: durationMs > 0 ? (count * 1000) / durationMs : 0,
    readP50Us: tookUs.length === 0 ? 0 : [...tookUs].sort((a, b) => a - b)[Math.floor(tookUs.length / 2)]!,
  };
}

/** The newest version whose COMMIT returned before `at` (binary search; 0 when none). */
export function committedBefore(commits: readonly number[], at: number): number {
  let low = 0;
  let high = commits.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (commits[mid]! < at) low = mid + 1;
    else high = mid;
  }
  return low;
}
