import type { Clock } from '../clock.ts';

/** Keys whose failure is remembered for `graceBackoff` at most at once (the oldest is forgotten first). */
const MAX_BACKOFFS = 10_000;

/**
 * `graceBackoff`: the keys whose source failed, and until when (the cache's clock) their
 * factory is not retried; meanwhile a stale or kept value is served as it is.
 */
export class Backoffs {
  readonly #until = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** True while the source of `full` failed less than its backoff ago. */
  backingOff(full: string): boolean {
    const until = this.#until.get(full);
    if (until === undefined) return false;
    if (this.clock.now() < until) return true;
    this.#until.delete(full);
    return false;
  }

  /** Notes a failure of the source of `full`, not retried for `backoffMs` (nothing noted for 0). */
  failed(full: string, backoffMs: number): void {
    if (!(backoffMs > 0)) return;
    // Bounded: the oldest note goes first (a key failing again is noted anew, at the end).
    this.#until.delete(full);
    if (this.#until.size >= MAX_BACKOFFS) this.#until.delete(this.#until.keys().next().value!);
    this.#until.set(full, this.clock.now() + backoffMs);
  }

  /** The source of `full` answered: it is retried at once from now on. */
  succeeded(full: string): void {
    this.#until.delete(full);
  }
}
