/**
 * The store's hand: one position per process in the id order of the entries (ids are seeded
 * hashes, so that order is random and a run of rows is a fair sample of the file). Each visit
 * reads the next few rows after it, removes the expired ones, and while the file is over a
 * bound removes the policy's first among the rest; then the hand moves past them. Expiry and
 * eviction therefore need no index to keep up on every write (each index is one more page per
 * write): what the sweep and the eviction cost is paid when they run, a few rows at a time.
 */
import type { SqliteRow } from './binding.ts';
import type { EvictionPolicy } from './options.ts';
import type { Statements } from './statements.ts';

/** The whole file's totals as the current transaction sees them; a visit keeps them up to date. */
export interface Totals {
  entries: number;
  bytes: number;
}

/** The bounds a visit brings the totals under. */
export interface Bounds {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** What one visit did. */
export interface Visit {
  /** Rows read (0: the file is empty). */
  examined: number;
  /** Rows removed, expired or evicted. */
  removed: number;
}

/** True while the totals exceed a bound. */
export const isOver = (totals: Totals, bounds: Bounds): boolean => totals.entries > bounds.maxEntries || totals.bytes > bounds.maxBytes;

interface Candidate {
  id: number;
  storedAt: number;
  usedAt: number;
  uses: number;
  size: number;
}

/** The policy's order: who goes first. */
const ORDER: Record<EvictionPolicy, (a: Candidate, b: Candidate) => number> = {
  'least-recently-stored': (a, b) => a.storedAt - b.storedAt,
  'least-recently-used': (a, b) => a.usedAt - b.usedAt || a.storedAt - b.storedAt,
  'least-frequently-used': (a, b) => a.uses - b.uses || a.usedAt - b.usedAt,
};

/** One process's hand over the file. */
export class Hand {
  /** The id last visited; the next visit starts after it. Starts at a random place, so processes spread out. */
  #at = Math.floor(Math.random() * 2 ** 53);
  readonly #order: (a: Candidate, b: Candidate) => number;

  constructor(policy: EvictionPolicy) {
    this.#order = ORDER[policy];
  }

  /**
   * Sweeps the `rows` rows after the hand inside a write transaction at time `now` (wrapping to
   * the first row, never past where the sweep began): removes the expired ones, in SQL alone
   * (no row reaches JavaScript), and moves the hand past them. Returns how many rows went.
   */
  sweep(s: Statements, now: number, rows: number): number {
    const start = this.#at;
    const nth = (after: number) => {
      const id = s.nth(after, rows - 1);
      return id === undefined || id === null ? undefined : Number(id);
    };
    const removeExpired = (after: number, upTo: number) => Number(s.removeExpired.run(after, upTo, now).changes);
    const end = nth(start);
    if (end !== undefined) {
      this.#at = end;
      return removeExpired(start, end);
    }
    // Fewer rows than that after the hand: the rest of the file, then as many from its start.
    let removed = removeExpired(start, Number.MAX_SAFE_INTEGER);
    const wrapEnd = nth(-1);
    const upTo = wrapEnd === undefined ? start : Math.min(wrapEnd, start);
    if (upTo >= 0) removed += removeExpired(-1, upTo);
    this.#at = wrapEnd !== undefined && wrapEnd < start ? wrapEnd : -1;
    return removed;
  }

  /**
   * Visits up to `rows` rows after the hand (wrapping to the first row), inside a write
   * transaction at time `now`: removes the expired ones, then, while `totals` are over `bounds`,
   * the policy's first of the others, at most half of those visited, so that every visit keeps
   * its better half. What was stored in this millisecond (by this transaction, most likely)
   * goes only when nothing else in the visit can.
   */
  visit(s: Statements, now: number, rows: number, totals: Totals, bounds: Bounds): Visit {
    const seen = s.window.all(this.#at, rows);
    if (seen.length < rows) seen.push(...s.windowFromStart.all(this.#at, rows - seen.length));
    this.#at = seen.length ? Number(seen[seen.length - 1]!.id) : -1;
    let removed = 0;
    const remove = (id: number, size: number) => {
      s.removeRow.run(id);
      totals.entries -= 1;
      totals.bytes -= size;
      removed++;
    };
    const older: Candidate[] = [];
    const fresh: Candidate[] = [];
    for (const row of seen) {
      const candidate = toCandidate(row);
      if (row.expires_at !== null && Number(row.expires_at) <= now) remove(candidate.id, candidate.size);
      else (candidate.storedAt < now * 1000 ? older : fresh).push(candidate);
    }
    if (isOver(totals, bounds)) {
      const order = [...older.sort(this.#order), ...fresh.sort(this.#order)];
      const most = Math.max(1, Math.floor(order.length / 2));
      for (let i = 0; i < most && isOver(totals, bounds); i++) remove(order[i]!.id, order[i]!.size);
    }
    return { examined: seen.length, removed };
  }
}

function toCandidate(row: SqliteRow): Candidate {
  return { id: Number(row.id), storedAt: Number(row.stored_at), usedAt: Number(row.used_at), uses: Number(row.uses), size: Number(row.size) };
}
