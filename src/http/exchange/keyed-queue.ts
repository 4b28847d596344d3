/**
 * Runs async work one at a time per key, in call order, within this process: read-modify-write
 * sequences on one store key (a tag's key list, a URL's vary marker) then cannot interleave
 * and lose each other's changes.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier piece of work queued for `key` has settled. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }
}
