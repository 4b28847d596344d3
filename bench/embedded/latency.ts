/** Per-call latency samples and their percentiles, in microseconds. */

/** Percentiles of one operation's samples. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** A fixed-capacity list of samples in µs (no allocation while measuring). */
export class Samples {
  readonly #values: Float64Array;
  #count = 0;

  constructor(capacity: number) {
    this.#values = new Float64Array(capacity);
  }

  /** Records one call that took `ms` milliseconds (performance.now() difference). */
  add(ms: number): void {
    if (this.#count < this.#values.length) this.#values[this.#count++] = ms * 1000;
  }

  get count(): number {
    return this.#count;
  }

  /** p50, p90, p99 and max, rounded to 0.01 µs; zeros when nothing was recorded. */
  summary(): LatencySummary {
    const sorted = this.#values.slice(0, this.#count).sort();
    const at = (q: number) => (sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!) : 0);
    return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length ? round(sorted[sorted.length - 1]!) : 0 };
  }
}

const round = (us: number) => Math.round(us * 100) / 100;
