/**
 * The one interface every contender implements. Each adapter file maps it onto a library's
 * public API and nothing else, so a row of the report measures what a user of that library
 * would get.
 */

/** The seven phases, in the report's column order. */
export const PHASES = ['get', 'get-miss', 'set', 'mget', 'mset', 'incr', 'delete'] as const;
/** One of {@link PHASES}. */
export type PhaseName = (typeof PHASES)[number];

/** A library opened against one server, ready for the phases. */
export interface Contender {
  /** The value under `key`; undefined or null when absent. */
  get(key: string): Promise<unknown>;
  /** Stores `value`; rejects when the library reports the write failed. */
  set(key: string, value: unknown): Promise<void>;
  /** Values for `keys` in order, undefined/null for holes. */
  getMany(keys: readonly string[]): Promise<unknown[]>;
  /** Stores every pair. */
  setMany(entries: ReadonlyArray<readonly [string, unknown]>): Promise<void>;
  /** Adds one to the counter under `key` and resolves with its new value. */
  incr(key: string): Promise<number>;
  /** Removes `key`. */
  delete(key: string): Promise<void>;
  /** Releases every connection the contender opened. */
  close(): Promise<void>;
}

/** How to open a contender, and what the report must say about it. */
export interface ContenderSpec {
  /** Stable id used in result files and key prefixes. */
  id: string;
  /** Row label in the report. */
  label: string;
  /** Phases the library has no native call for, with the public equivalent used instead. */
  footnotes?: Partial<Record<PhaseName, string>>;
  /** Opens the contender on the server at `url` (ignored by in-process stores). */
  open(url: string): Promise<Contender>;
}

/** A write the library itself reported as failed (its return value said so; it did not throw). */
export class WriteReportedFailure extends Error {}

/** Throws {@link WriteReportedFailure} when a library reports a failed write through its return value. */
export function mustSucceed(ok: boolean | undefined, what: string): void {
  if (ok === false) throw new WriteReportedFailure(`${what} reported failure`);
}

/**
 * True when the write landed, false when the library reported it failed (a cache that gives up
 * on a late store answer under load does so by design: the phase counts it as a failed check and
 * the report flags it, rather than the whole run stopping). Any other error propagates.
 */
export async function landed(write: Promise<void>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof WriteReportedFailure) return false;
    throw error;
  }
}
