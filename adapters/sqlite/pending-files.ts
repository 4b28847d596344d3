/**
 * The value files of one write, from before their first byte to the row that names them. A
 * process killed between writing a value file and committing its row used to leave the file for
 * ever, uncounted (47 of 304 files after 6 kills). Now each file is reserved first, in a short
 * write transaction of its own that records its name, its bytes (counted in the file's totals,
 * so `maxBytes` bounds files in flight too) and until when its writer may still name it; the
 * file is written outside any transaction (the write lock is never held during that I/O); the
 * transaction that writes the rows takes the reservations. Each step runs once, however often
 * the write is retried while another connection holds the lock.
 *
 * Telling an orphan from a write in progress: the reservation says until when (this machine's
 * clock: every process sharing the file runs on it) its writer may take it, `timeoutMs` (its
 * retries while the file is busy) plus {@link PENDING_GRACE_MS} (writing the file, a stalled
 * event loop). Only past that does the sweep of any process collect the reservation and remove
 * its file. A writer that was only stalled for that long (a stopped process, a clock stepped
 * forward) finds its reservation gone when it writes the row, and stores the value inside the
 * database instead: a row never names a file that was collected.
 */
import type { Statements } from './statements.ts';
import { ValueFiles } from './value-files.ts';

/** How long past its own timeout a writer may take to name a file it reserved. */
export const PENDING_GRACE_MS = 10 * 60_000;
/** Reservations one sweep collects at most: bounded work, whatever a crash left behind. */
export const ORPHANS_PER_SWEEP = 64;

/** The files of one write (a name for each value that goes to a file, undefined for one kept inline). */
export class PendingFiles {
  /** The file of each value, undefined for a value kept inline. */
  readonly names: ReadonlyArray<string | undefined>;
  readonly #values: ReadonlyArray<Uint8Array | undefined>;
  readonly #files: ValueFiles;
  #reserved = false;
  #written = 0;
  #committed = false;
  /** Files whose reservation was collected before the rows were written: removed once they are. */
  #lost: string[] = [];

  /** `values[i]` goes to a file of its own; undefined: value i stays inline. */
  constructor(files: ValueFiles, values: ReadonlyArray<Uint8Array | undefined>) {
    this.#files = files;
    this.#values = values;
    this.names = values.map((value) => (value === undefined ? undefined : ValueFiles.newName()));
  }

  /** True once the reservations are committed. */
  get reserved(): boolean {
    return this.#reserved;
  }

  /** Inside a write transaction: reserves every file until `until`; returns the bytes reserved. */
  reserve(s: Statements, until: number): number {
    let bytes = 0;
    for (let i = 0; i < this.names.length; i++) {
      const name = this.names[i];
      if (name === undefined) continue;
      s.reserve.run(name, this.#values[i]!.length, until);
      bytes += this.#values[i]!.length;
    }
    return bytes;
  }

  /** The reservation's transaction committed. */
  markReserved(): void {
    this.#reserved = true;
  }

  /** Writes the files not written yet (throws the store's FULL or IOERR). */
  write(): void {
    for (; this.#written < this.names.length; this.#written++) {
      const name = this.names[this.#written];
      if (name !== undefined) this.#files.write(name, this.#values[this.#written]!);
    }
  }

  /**
   * Inside the transaction that writes the rows: takes the reservations, and returns the file of
   * each value, undefined for one whose reservation was collected meanwhile (that value is
   * stored inline: its file is no longer counted, and may be gone).
   */
  take(s: Statements): Array<string | undefined> {
    this.#lost = [];
    return this.names.map((name) => {
      if (name === undefined || Number(s.unreserve.run(name).changes) > 0) return name;
      this.#lost.push(name);
      return undefined;
    });
  }

  /** The rows' transaction committed: the files of collected reservations go. */
  markCommitted(): void {
    this.#committed = true;
    for (const name of this.#lost) this.#files.remove(name);
  }

  /**
   * The write failed: removes the files it wrote, unless its rows were committed (the failure
   * came after, and the rows name them), and releases the reservations with `release` (which
   * runs {@link release} in a write transaction; when it cannot, the sweep collects them later).
   */
  abandon(release: () => void): void {
    if (this.#committed) return;
    for (const name of this.names) if (name !== undefined) this.#files.remove(name);
    if (!this.#reserved) return;
    try {
      release();
    } catch {
      // Busy or failing: the reservations run out, and a sweep collects them.
    }
  }

  /** Inside a write transaction: drops the reservations of a write that will not name its files. */
  release(s: Statements): void {
    for (const name of this.names) if (name !== undefined) s.unreserve.run(name);
  }
}
