/**
 * Hits under least-recently-used and least-frequently-used, counted in this process's memory
 * and written with its next write transaction: a hit stays a read (no write lock, no WAL frame),
 * and the eviction order they feed is sampled anyway (hand.ts). Hits a crash loses only make
 * their entries look a little less used.
 */
import type { SqliteStatement } from './binding.ts';

/** Hits counted before the store writes them in a transaction of their own. */
export const USES_PER_FLUSH = 1024;

interface Uses {
  key: string;
  usedAt: number;
  hits: number;
}

/** The hits not yet written, by entry id. */
export class PendingUses {
  #byId = new Map<number, Uses>();

  /** True while hits wait to be written. */
  get waiting(): boolean {
    return this.#byId.size > 0;
  }

  /** Counts a hit; true once enough are waiting that they should be written now. */
  record(id: number, key: string, now: number): boolean {
    const uses = this.#byId.get(id);
    if (uses && uses.key === key) {
      uses.usedAt = now;
      uses.hits++;
    } else if (this.#byId.size < 2 * USES_PER_FLUSH) {
      // Beyond twice the batch (the writes keep failing: the file is locked), new hits are dropped.
      this.#byId.set(id, { key, usedAt: now, hits: 1 });
    }
    return this.#byId.size >= USES_PER_FLUSH;
  }

  /** Writes every waiting hit with `touch` (inside a write transaction) and forgets them. */
  writeWith(touch: SqliteStatement): void {
    if (this.#byId.size === 0) return;
    for (const [id, uses] of this.#byId) touch.run(uses.usedAt, uses.hits, id, uses.key);
    this.#byId.clear();
  }
}
