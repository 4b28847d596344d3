/**
 * The SQLite store's transactions: a read transaction is one consistent snapshot; a write
 * transaction holds the write lock (BEGIN IMMEDIATE), runs its body, then the upkeep due with it
 * (upkeep.ts), and commits — or rolls back whole, so that nothing the upkeep found or queued
 * stands. Hostile garbage names the upkeep found are reported after the commit, by the call
 * whose write was stored.
 */
import { SqliteStoreError, sqliteErrorCode } from './errors.ts';
import type { OpenFile } from './open-file.ts';
import { rollbackQuietly } from './schema.ts';
import type { Outcome } from './tick-writes.ts';
import type { Upkeep } from './upkeep.ts';

/** Runs the store's transactions on its open file; see the module comment. */
export class Transactions {
  readonly #file: OpenFile;
  readonly #upkeep: Upkeep;
  #active = false;

  constructor(file: OpenFile, upkeep: Upkeep) {
    this.#file = file;
    this.#upkeep = upkeep;
  }

  /** `body` in one transaction (with the upkeep due, when `write`); its result once committed. */
  run<T>(write: boolean, body: (now: number) => T): T {
    const s = this.#file.statements();
    (write ? s.beginImmediate : s.begin).run();
    this.#active = true;
    try {
      const now = Date.now();
      if (write) this.#upkeep.began(s);
      const result = body(now);
      if (write) this.#upkeep.maintain(s, now);
      s.commit.run();
      if (write) this.#upkeep.committed();
      return result;
    } catch (error) {
      rollbackQuietly(this.#file.db!);
      this.#upkeep.rolledBack(write);
      throw error;
    } finally {
      this.#active = false;
    }
  }

  /** `body` and the upkeep due in one write transaction; reports hostile garbage after the commit. */
  write<T>(body: (now: number) => T): T {
    const result = this.run(true, body);
    const hostile = this.#upkeep.takeHostile();
    if (hostile) throw hostile;
    return result;
  }

  /** The folded writes of a tick in one transaction, each with its own outcome. */
  batch(runs: ReadonlyArray<(now: number) => unknown>): Outcome[] {
    const outcomes = this.run(true, (now) => runs.map((run) => outcomeOf(run, now)));
    const hostile = this.#upkeep.takeHostile();
    // One report per transaction: on its first write, which was stored like the others.
    if (hostile) outcomes[0] = { ok: false, error: hostile };
    return outcomes;
  }

  /** Writes the hits counted so far, in a transaction of their own, unless one is under way (or the file is busy: they wait). */
  writeUses(): void {
    if (this.#active) return;
    try {
      // run, not write: a hostile garbage name found here is reported by the next write.
      this.run(true, () => undefined);
    } catch {
      // Busy or failing: the hits wait for the next write transaction.
    }
  }

  /**
   * Once open: one write transaction that collects the orphans of processes killed while
   * writing a value file, and claims the garbage others left; skipped when the file is busy
   * (the sweeps of this process do it then).
   */
  collectOnOpen(): void {
    try {
      this.run(true, (now) => this.#upkeep.collectOrphans(this.#file.s!, now));
    } catch {
      // Busy or failing: every sweep collects orphans too.
    }
  }
}

/**
 * Runs one folded write: its own failure (not the file's) becomes its outcome; a failure of
 * SQLite's is thrown, so that the transaction rolls back (and is retried when busy).
 */
export function outcomeOf(run: (now: number) => unknown, now: number): Outcome {
  try {
    return { ok: true, value: run(now) };
  } catch (error) {
    if (error instanceof SqliteStoreError || sqliteErrorCode(error)) throw error;
    return { ok: false, error };
  }
}
