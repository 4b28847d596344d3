/**
 * Value files from before their first byte to the row that names them. A process killed between
 * writing a value file and committing its row used to leave the file for ever, uncounted (47 of
 * 304 files after 6 kills). Now a file is only ever written under a name reserved in the
 * database first (`cachette_pending`, schema.ts): the reservation records the name, its bytes
 * (counted in the file's totals, so `maxBytes` bounds files in flight too) and until when its
 * writer may still name it; the transaction that writes the row takes the reservation.
 *
 * A reservation costs no transaction of its own on the common path: each write transaction that
 * takes reservations makes as many new ones ("spares", of the same sizes) for this process's
 * next large values, so a large set writes its file at once under a spare and its row folds with
 * the other writes of its tick, as before. Only a value no spare fits waits for a short write
 * transaction that reserves its name. Spares are at most {@link MAX_SPARES}, used only while
 * young, and released when they age or the store closes.
 *
 * Telling an orphan from a write in progress: the reservation says until when (this machine's
 * clock, which every process sharing the file reads) its writer may take it: `timeoutMs` (its
 * retries while the file is busy) plus {@link PENDING_GRACE_MS} (writing the file, a stalled
 * event loop). Only past that does the open or a sweep of any process collect it and remove its
 * file. A writer stalled for that long (a stopped process, a clock stepped forward) finds its
 * reservation gone when it writes the row and stores the value inside the database instead: a
 * row never names a file that was collected.
 */
import type { Statements } from './statements.ts';
import { ValueFiles } from './value-files.ts';

/** How long past its own timeout a writer may take to name a file it reserved. */
export const PENDING_GRACE_MS = 10 * 60_000;
/** Reservations one sweep collects at most: bounded work, whatever a crash left behind. */
export const ORPHANS_PER_SWEEP = 64;
/** Most spare reservations a process keeps. */
export const MAX_SPARES = 16;
/** A spare older than this is not used (it keeps at least as long again before it runs out), but released. */
const SPARE_LIFE_MS = PENDING_GRACE_MS / 2;

/** One value's file, under a reserved name. */
export interface PendingFile {
  readonly name: string;
  /** The value's bytes (its reservation counts at least these). */
  readonly size: number;
  /** It came from a spare: the transaction that names it reserves another in its place. */
  readonly spare: boolean;
  /** True once a committed row names it. */
  named: boolean;
}

interface Spare {
  name: string;
  size: number;
  /** When it was reserved (ms, this machine's clock). */
  at: number;
}

/** One store's reservations: its spares, and what the write transaction under way did with them. */
export class Reservations {
  readonly #files: ValueFiles;
  /** Committed reservations with no file yet, for this process's next large values. */
  #spares: Spare[] = [];
  /** Sizes to reserve with the next write transaction, for writes no spare fitted. */
  #needed: number[] = [];
  /** Reservations to drop with the next write transaction (their write failed before its row). */
  #unused: string[] = [];
  // What the transaction under way did, applied when it commits, undone when it rolls back.
  #reserved: Spare[] = [];
  #taken: PendingFile[] = [];
  #released: string[] = [];
  /** Set on close: nothing is reserved any more. */
  #closing = false;

  constructor(files: ValueFiles) {
    this.#files = files;
  }

  /** A reserved name for a file of `size` bytes, when a spare fits (the caller writes the file); undefined otherwise. */
  take(size: number, now: number): PendingFile | undefined {
    const i = this.#spares.findIndex((spare) => spare.size >= size && now - spare.at < SPARE_LIFE_MS);
    if (i === -1) return undefined;
    const spare = this.#spares.splice(i, 1)[0]!;
    return { name: spare.name, size, spare: true, named: false };
  }

  /** The next write transaction must reserve a name for a file of `size` bytes (then {@link take} finds it). */
  need(size: number): void {
    this.#needed.push(size);
  }

  /**
   * Inside a write transaction, in its maintenance: reserves what is needed until `until`, and
   * drops what failed and what aged. Returns the bytes it added to the totals.
   */
  maintain(s: Statements, now: number, until: number): number {
    let bytes = 0;
    if (this.#closing) return bytes;
    for (const size of this.#needed) {
      const name = ValueFiles.newName();
      s.reserve.run(name, size, until);
      this.#reserved.push({ name, size, at: now });
      bytes += size;
    }
    const aged = this.#spares.filter((spare) => now - spare.at >= SPARE_LIFE_MS).map((spare) => spare.name);
    for (const name of [...this.#unused, ...aged]) {
      s.unreserve.run(name);
      this.#released.push(name);
    }
    return bytes;
  }

  /**
   * Inside the transaction that writes the row, at `now`: takes the file's reservation and
   * returns its name, or undefined when the reservation was collected meanwhile (the value is
   * then stored inline, and the file queued as garbage, for the caller to claim). A spare taken is made a
   * new spare of the value's size in the same statement (within {@link MAX_SPARES}), until
   * `until`, for this process's next large value.
   */
  name(file: PendingFile, s: Statements, now: number, until: number): string | undefined {
    const renew = file.spare && !this.#closing && this.#spares.length + this.#reserved.length < MAX_SPARES;
    const next = renew ? ValueFiles.newName() : '';
    const taken = renew ? s.renew.run(next, file.size, until, file.name) : s.unreserve.run(file.name);
    if (Number(taken.changes) === 0) {
      // Queued, not removed after the commit alone: a kill in between would leak the file.
      s.addGarbage.run(file.name);
      return undefined;
    }
    if (renew) this.#reserved.push({ name: next, size: file.size, at: now });
    this.#taken.push(file);
    return file.name;
  }

  /** The write transaction under way committed. */
  committed(): void {
    this.#spares.push(...this.#reserved);
    for (const file of this.#taken) file.named = true;
    const released = new Set(this.#released);
    this.#spares = this.#spares.filter((spare) => !released.has(spare.name));
    this.#unused = this.#unused.filter((name) => !released.has(name));
    this.#needed = [];
    this.#forgetTransaction();
  }

  /** The write transaction under way rolled back: what it reserved, took or released stands as before. */
  rolledBack(): void {
    this.#forgetTransaction();
  }

  /** A write failed before its row was committed: its files go, their reservations with the next write transaction. */
  abandon(files: ReadonlyArray<PendingFile | undefined>): void {
    for (const file of files) {
      if (file === undefined || file.named) continue;
      this.#files.remove(file.name);
      this.#unused.push(file.name);
    }
  }

  /** True while spares or failed reservations wait to be released. */
  get holding(): boolean {
    return this.#spares.length > 0 || this.#unused.length > 0;
  }

  /** Inside a write transaction, on close: releases every spare and failed reservation (a kill leaves them to the sweeps). */
  releaseAll(s: Statements): void {
    this.#closing = true;
    for (const name of [...this.#spares.map((spare) => spare.name), ...this.#unused]) s.unreserve.run(name);
  }

  #forgetTransaction(): void {
    this.#reserved = [];
    this.#taken = [];
    this.#released = [];
  }
}
