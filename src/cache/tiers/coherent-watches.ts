/** A wait for the next change of one key, as the coherent tier hears of it ({@link KeyWatches}). */
export interface KeyWatch {
  /**
   * Resolves true once the key was invalidated, or anything may have changed (a flush, the bus
   * lost), since the watch was opened; false at `deadline` (performance.now() ms). Either way
   * the watch is closed.
   */
  until(deadline: number): Promise<boolean>;
  /** Closes the watch without waiting. */
  cancel(): void;
}

/**
 * Who waits for a key to change in this process: a `getOrSet` that found another process's
 * fill lease held (src/cache/fill/fill-handler.ts) waits for that fill's write here, told by
 * the coherence bus, instead of looking at the store again and again. Each watch belongs to
 * one call in flight and is closed when it resolves, so the map holds no more than the calls
 * that wait.
 */
export class KeyWatches {
  readonly #byKey = new Map<string, Set<() => void>>();

  /** Opens a watch of `full`: a change heard from now on resolves it. */
  open(full: string): KeyWatch {
    const byKey = this.#byKey;
    let changed = false;
    let settle: ((changed: boolean) => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const close = () => {
      if (timer !== undefined) clearTimeout(timer);
      const waiting = byKey.get(full);
      if (waiting === undefined) return;
      waiting.delete(wake);
      if (waiting.size === 0) byKey.delete(full);
    };
    const wake = () => {
      changed = true;
      close();
      settle?.(true);
    };
    const waiting = byKey.get(full);
    if (waiting) waiting.add(wake);
    else byKey.set(full, new Set([wake]));
    return {
      until: (deadline) => {
        if (changed) return Promise.resolve(true);
        return new Promise<boolean>((resolve) => {
          settle = resolve;
          timer = setTimeout(
            () => {
              close();
              resolve(false);
            },
            Math.max(0, deadline - performance.now()),
          );
        });
      },
      cancel: close,
    };
  }

  /** These keys changed: their watches resolve. */
  changed(keys: readonly string[]): void {
    if (this.#byKey.size === 0) return;
    for (const key of keys) {
      const waiting = this.#byKey.get(key);
      if (waiting) for (const wake of [...waiting]) wake();
    }
  }

  /** Anything may have changed: every watch resolves. */
  all(): void {
    for (const waiting of [...this.#byKey.values()]) for (const wake of [...waiting]) wake();
  }
}
