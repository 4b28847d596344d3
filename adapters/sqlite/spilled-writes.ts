/**
 * The SQLite store's writes of values large enough to live in files of their own
 * (`fileThreshold`): each file is written under a name reserved in the database first
 * (pending-files.ts), then named by the row its write stores, so a kill between the two never
 * leaks a file, and a row never names a file that was collected.
 */
import { StoreClosedError } from '../../src/store/errors.ts';
import type { OpenFile } from './open-file.ts';
import { PENDING_GRACE_MS, type PendingFile, type Reservations } from './pending-files.ts';
import type { TickWrites } from './tick-writes.ts';
import type { Transactions } from './transactions.ts';
import type { Upkeep } from './upkeep.ts';
import type { ValueFiles } from './value-files.ts';

/** What the large writes work with: the store's bounds, its file and its transactions. */
export interface SpilledWritesSetup {
  path: string;
  fileThreshold: number;
  maxBytes: number;
  timeoutMs: number;
  file: OpenFile;
  files: ValueFiles;
  reservations: Reservations;
  upkeep: Upkeep;
  tx: Transactions;
  writes: TickWrites;
}

/** Writes whose values go to files of their own; see the module comment. */
export class SpilledWrites {
  readonly #s: SpilledWritesSetup;

  constructor(setup: SpilledWritesSetup) {
    this.#s = setup;
  }

  /** True when `value` goes to a file of its own: it is large enough, and would be stored at all. */
  spills(key: string, value: Uint8Array, ttlMs: number | undefined): boolean {
    return value.length >= this.#s.fileThreshold && value.length + key.length <= this.#s.maxBytes && (ttlMs === undefined || ttlMs > 0);
  }

  /**
   * A write whose `values` (undefined: kept inline) go to files of their own, each under a
   * reserved name (pending-files.ts), then named by the rows `body` writes. With a spare
   * reservation for each, the files are written now and the rows fold with the tick's other
   * writes; otherwise the write runs alone, after a short transaction that reserves the names.
   */
  write<T>(values: ReadonlyArray<Uint8Array | undefined>, body: (now: number, files: ReadonlyArray<string | undefined>) => T): Promise<T> {
    // A closed store writes no file: nothing would ever name it.
    if (this.#s.file.closed) return Promise.reject(new StoreClosedError(`sqlite store (${this.#s.path})`));
    const now = Date.now();
    const files = values.map((value) => (value === undefined ? undefined : this.#s.reservations.take(value.length, now)));
    let written = 0;
    const write = () => {
      for (; written < files.length; written++) if (files[written]) this.#s.files.write(files[written]!.name, values[written]!);
    };
    const within = (at: number) => body(at, this.#namesOf(files, at));
    const abandon = (error: unknown): never => {
      this.#s.reservations.abandon(files);
      throw error;
    };
    if (files.every((file, i) => file !== undefined || values[i] === undefined)) {
      try {
        write();
      } catch (error) {
        this.#s.reservations.abandon(files);
        return Promise.reject(error);
      }
      return this.#s.writes.submit({ alone: () => this.#s.tx.write(within), within }).catch(abandon);
    }
    let needed = false;
    const alone = (): T => {
      if (!needed) for (let i = 0; i < values.length; i++) if (values[i] !== undefined && files[i] === undefined) this.#s.reservations.need(values[i]!.length);
      needed = true;
      if (files.some((file, i) => file === undefined && values[i] !== undefined)) {
        this.#s.tx.run(true, () => undefined);
        const at = Date.now();
        for (let i = 0; i < values.length; i++) if (values[i] !== undefined) files[i] ??= this.#s.reservations.take(values[i]!.length, at);
      }
      write();
      return this.#s.tx.write(within);
    };
    return this.#s.writes.submit({ alone }).catch(abandon);
  }

  /**
   * Inside the rows' transaction: the name of each file, undefined for one whose reservation was
   * collected meanwhile (its value is stored inline, and its file queued as garbage: claimed now).
   */
  #namesOf(files: ReadonlyArray<PendingFile | undefined>, now: number): Array<string | undefined> {
    const s = this.#s.file.statements();
    return files.map((file) => {
      if (file === undefined) return undefined;
      const name = this.#s.reservations.name(file, s, now, now + this.#s.timeoutMs + PENDING_GRACE_MS);
      if (name === undefined) this.#s.upkeep.claimFiles();
      return name;
    });
  }
}
