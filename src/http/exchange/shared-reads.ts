/**
 * Concurrent lookups of one stored entry share one read of it: one store call, one decode, one
 * body in memory, however many requests ask for it at once. Without this, every hit read and
 * decoded its own copy: a hundred clients asking at once for a 7 MiB response folded into one
 * MGET that brought a hundred copies back together, and the proxy's RSS grew by a copy per
 * client before any of them was found equal to another (issue 27, item 12).
 *
 * A lookup joins only a read that began after the last write, delete or purge this HTTP cache
 * made of that entry had settled: the owner calls {@link SharedReads.forget} (or
 * {@link SharedReads.forgetAll} for a purge by tag, which may touch any entry) once such a
 * change is done, so that a request that comes after it never gets the answer of a read that
 * may have preceded it. Reads in flight are the only state: once a read settles the next lookup
 * reads again, so nothing is ever served that the store does not hold now (no copy is kept, as
 * an in-process tier would). Every joiner gets the same decoded value, which the HTTP cache
 * treats as immutable (a freshened or combined entry is a new object).
 */
export class SharedReads {
  readonly #inFlight = new Map<string, Promise<unknown>>();

  /** The value of the read of `key` in flight, or of a new one made with `read` when none is. */
  get(key: string, read: () => Promise<unknown>): Promise<unknown> {
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const started = read();
    this.#inFlight.set(key, started);
    const settled = () => {
      if (this.#inFlight.get(key) === started) this.#inFlight.delete(key);
    };
    started.then(settled, settled);
    return started;
  }

  /** The entries under `keys` changed: lookups from now on read them again. */
  forget(keys: readonly string[]): void {
    for (const key of keys) this.#inFlight.delete(key);
  }

  /** Any entry may have changed (a purge by tag): lookups from now on read again. */
  forgetAll(): void {
    this.#inFlight.clear();
  }
}
