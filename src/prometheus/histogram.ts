/**
 * A fixed-bucket latency histogram: one counter per bucket, so memory stays bounded whatever
 * the traffic, and the cumulative counts Prometheus expects are computed only when scraped.
 */

/**
 * Default upper bounds in seconds: 50 µs to 5 s. A memory hit takes microseconds and a store
 * round trip a fraction of a millisecond, so the low buckets are dense where a cache lives.
 */
export const DEFAULT_BUCKETS: readonly number[] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Observations in seconds, bucketed. */
export class Histogram {
  readonly bounds: readonly number[];
  readonly #counts: number[];
  #sum = 0;
  #count = 0;

  /** `bounds`: ascending, finite, positive upper bounds in seconds. */
  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.#counts = new Array<number>(bounds.length).fill(0);
  }

  /** Records one observation. */
  observe(seconds: number): void {
    this.#sum += seconds;
    this.#count++;
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        this.#counts[i]!++;
        return;
      }
    }
  }

  /** Observations at or below each bound, cumulative, as the format wants them. */
  cumulative(): number[] {
    let running = 0;
    return this.#counts.map((n) => (running += n));
  }

  get sum(): number {
    return this.#sum;
  }

  get count(): number {
    return this.#count;
  }
}

/** Checks user-given bucket bounds: a clear error beats a histogram Prometheus rejects. */
export function checkBuckets(bounds: unknown, what: string): readonly number[] {
  if (!Array.isArray(bounds) || bounds.length === 0) throw new TypeError(`${what}: buckets must be a non-empty array of seconds`);
  for (let i = 0; i < bounds.length; i++) {
    const bound = bounds[i] as unknown;
    if (typeof bound !== 'number' || !Number.isFinite(bound) || bound <= 0) throw new RangeError(`${what}: bucket ${i} must be a finite, positive number of seconds, got ${String(bound)}`);
    if (i > 0 && bound <= (bounds[i - 1] as number)) throw new RangeError(`${what}: buckets must be in ascending order (${bounds[i - 1]} then ${bound})`);
  }
  return [...(bounds as number[])];
}
