import { describe, expect, it } from 'vitest';
import { analyse, committedBefore } from '../../bench/race/analyse.ts';

describe('the race bench verdicts', () => {
  // Version 1 committed at t=10, version 2 at t=20.
  const commits = [10, 20];

  it('finds the newest version committed before a read began', () => {
    expect(committedBefore(commits, 5)).toBe(0);
    expect(committedBefore(commits, 10)).toBe(0); // a commit returning at the same instant does not count
    expect(committedBefore(commits, 15)).toBe(1);
    expect(committedBefore(commits, 99)).toBe(2);
  });

  it('counts stale reads per 1,000, distinct stale versions, hit ratio, rate and median read', () => {
    // Reads (began at, version): fresh, fresh, stale (0 after 1 committed), stale (1 after 2), stale (1 again).
    const reads = [5, 0, 12, 1, 15, 0, 25, 1, 26, 1];
    expect(analyse(commits, reads, 1, 500, [9, 3, 40, 7, 5])).toEqual({ reads: 5, stalePerThousand: 600, episodes: 2, hitRatio: 0.8, readsPerSecond: 10, readP50Us: 7 });
    // Without durations the median is 0, not NaN.
    expect(analyse(commits, [], 0, 0)).toEqual({ reads: 0, stalePerThousand: 0, episodes: 0, hitRatio: 0, readsPerSecond: 0, readP50Us: 0 });
  });
});
