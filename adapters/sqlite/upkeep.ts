/**
 * The SQLite store's upkeep inside its write transactions: the bounds (the hand sweeps expired
 * rows and evicts, hand.ts), the hits counted in memory (pending-uses.ts), the reservations of
 * value files (pending-files.ts) and the claim of the files whose rows went. A write that stays
 * within this process's share of the headroom, with no sweep due and no file to claim, needs
 * none of it: {@link Upkeep.due} says when a lone write must run in a transaction for it.
 */
import { SqliteStoreError } from './errors.ts';
import { Hand, isOver, type Bounds, type Totals } from './hand.ts';
import type { EvictionPolicy } from './options.ts';
import { ORPHANS_PER_SWEEP, PENDING_GRACE_MS, type Reservations } from './pending-files.ts';
import { PendingUses } from './pending-uses.ts';
import type { Statements } from './statements.ts';
import { isValueFileName, type ValueFiles } from './value-files.ts';

/** Writes of this process between two sweeps of the hand over the file (hand.ts). */
export const SWEEP_EVERY = 64;
/** Rows a sweep visits: on average one row per write, so every entry is visited once per `entries` writes. */
export const SWEEP_ROWS = 64;
/** Rows one eviction step samples; the policy's first of them goes. */
export const EVICTION_SAMPLE = 16;
/** Rows one write transaction evicts at most: a bound lowered a lot is met over the next writes, not in one long lock. */
export const EVICTIONS_PER_WRITE = 256;
// A process checks the shared totals again once its own writes have used this share of the
// headroom it last saw: N processes writing at once overshoot a bound only if N exceeds it.
const HEADROOM_SHARE = 16;
// Keys whose value file this process wrote, so that the write replacing or removing one
// removes the file in the same transaction; beyond this many, only the sweeps do (every 64 writes).
const OWN_FILES_MAX = 16_384;

/** What the upkeep works with: the store's bounds and files. */
export interface UpkeepSetup {
  path: string;
  bounds: Bounds;
  policy: EvictionPolicy;
  timeoutMs: number;
  files: ValueFiles;
  reservations: Reservations;
}

/** The upkeep's state between write transactions, and its steps inside them; see the module comment. */
export class Upkeep {
  /** Hits waiting to be written (least-recently/frequently-used only). */
  readonly uses: PendingUses | undefined;
  readonly #setup: UpkeepSetup;
  readonly #hand: Hand;
  readonly #ownFiles = new Set<number>();
  // What this process may still write before it reads the shared totals again (-1: at once),
  // writes left before the next sweep, and whether the transaction under way must claim value files.
  #budgetBytes = -1;
  #budgetEntries = -1;
  #writesToSweep = SWEEP_EVERY;
  #claimDue = false;
  #hostile: unknown[] = [];
  // The garbage table's last rowid when the write transaction under way began, and the files
  // of the names it queued itself, removed once it commits (#maintain says why).
  #garbageMark = 0;
  #removeAfterCommit: string[] = [];

  constructor(setup: UpkeepSetup) {
    this.#setup = setup;
    this.#hand = new Hand(setup.policy);
    this.uses = setup.policy === 'least-recently-stored' ? undefined : new PendingUses();
  }

  /**
   * True when a lone write of `id` needs a transaction for the upkeep due with it (its share of
   * the headroom is used, a sweep is due, a value file is to be claimed); else it is one
   * statement. `adds`: bytes it may add (-1: none).
   */
  due(id: number, adds: number): boolean {
    return this.#claimDue || this.#writesToSweep <= 1 || this.#ownFiles.has(id) || (adds >= 0 && (this.#budgetBytes < adds || this.#budgetEntries < 1));
  }

  /** Counts a write of `size` bytes against the headroom and the sweep. */
  spent(size: number): void {
    this.#budgetBytes -= size;
    this.#budgetEntries -= 1;
    this.#writesToSweep--;
  }

  /** Counts a removal against the sweep; the file of `id`, if this process wrote it, is to be claimed. */
  removed(id: number): void {
    this.released(id);
    this.#writesToSweep--;
  }

  /** This process wrote a file for `id`: the write that replaces or removes it claims the file. */
  ownFile(id: number): void {
    if (this.#ownFiles.has(id)) this.#claimDue = true;
    else if (this.#ownFiles.size >= OWN_FILES_MAX) this.#ownFiles.clear();
    this.#ownFiles.add(id);
  }

  /** `id` is now stored inline (or gone): a file this process wrote for it is to be claimed. */
  released(id: number): void {
    if (this.#ownFiles.delete(id)) this.#claimDue = true;
  }

  /** The transaction under way queued value files as garbage (a clear, a reservation collected meanwhile): claim them. */
  claimFiles(): void {
    this.#claimDue = true;
  }

  /** A write transaction begins, holding the write lock. */
  began(s: Statements): void {
    // Every garbage name after this rowid is this transaction's (a new row's rowid is one past
    // the largest, the claim deleting rows comes after every insert).
    this.#garbageMark = Number(s.garbageMark());
  }

  /**
   * Inside a write transaction, after its writes: the hits counted in memory, then, when this
   * process has used its share of the headroom or a sweep is due, the shared totals and as many
   * visits of the hand as bring them under the bounds, and the claim of value files.
   */
  maintain(s: Statements, now: number): void {
    const { bounds, reservations, timeoutMs, files } = this.#setup;
    this.uses?.writeWith(s.touch);
    // Counted at once: the totals include them, and what follows makes room for them.
    this.#budgetBytes -= reservations.maintain(s, now, now + timeoutMs + PENDING_GRACE_MS);
    const sweep = this.#writesToSweep <= 0;
    let claim = this.#claimDue;
    if (sweep || this.#budgetBytes < 0 || this.#budgetEntries < 0) {
      if (sweep) this.collectOrphans(s, now);
      const totals = readTotals(s);
      // The sweep's removals are in the totals the triggers keep, not yet in this copy: read again.
      if (sweep && this.#hand.sweep(s, now, SWEEP_ROWS) > 0) Object.assign(totals, readTotals(s));
      for (let removed = 0; removed < EVICTIONS_PER_WRITE && isOver(totals, bounds); ) {
        const visit = this.#hand.visit(s, now, EVICTION_SAMPLE, totals, bounds);
        if (visit.examined === 0) break;
        removed += visit.removed;
      }
      this.#writesToSweep = SWEEP_EVERY;
      this.#setBudget(totals);
      claim = true;
    }
    this.#claimDue = false;
    if (!claim || s.anyGarbage() === undefined) return;
    // Value files whose rows went. Those queued by earlier commits (of any process) are claimed
    // and removed before this commit: their rows are gone for good, and if the commit fails the
    // names come back and a later write removes them again (a file already gone is fine). Those
    // this transaction queued (its overwrites, deletes, evictions, collected reservations) are
    // removed only once it commits, and their names stay queued for a later claim: removed
    // before, a rollback (a kill, a failed commit) would bring back rows naming files that are
    // gone; unqueued, a kill between the commit and the removal would leak the files. So no
    // file is ever leaked, and no row names a file that was removed. A name the store did not
    // write is dropped from the table and never touched; the call reports it once its own write
    // is committed.
    const hostile = s.claimGarbage.all(this.#garbageMark).filter(({ file }) => !files.remove(file));
    this.#hostile.push(...hostile.map(({ file }) => file));
    for (const { file } of s.newGarbage.all(this.#garbageMark)) this.#removeAfterCommit.push(file as string);
  }

  /**
   * Inside a write transaction: the reservations whose time ran out (their writer died before
   * naming their files) go, a bounded number at a time, their names queued as garbage by this
   * transaction, so their files are removed once it commits (#maintain). Not before: a rollback
   * (a kill, a failed commit) would bring back a reservation whose file is gone, and a writer
   * stalled past its time, finding it there, would name that file in a row.
   */
  collectOrphans(s: Statements, now: number): void {
    for (const { file } of s.collectPending.all(now, ORPHANS_PER_SWEEP)) {
      if (isValueFileName(file)) s.addGarbage.run(file);
      else this.#hostile.push(file);
    }
    this.#claimDue = true;
  }

  /** A write transaction committed: what it reserved and took stands, and the files of the rows it removed go. */
  committed(): void {
    this.#setup.reservations.committed();
    for (const file of this.#removeAfterCommit) this.#setup.files.remove(file);
    this.#removeAfterCommit = [];
  }

  /** A transaction rolled back: nothing it found or queued stands. */
  rolledBack(write: boolean): void {
    this.#hostile = [];
    this.#removeAfterCommit = [];
    if (write) this.#setup.reservations.rolledBack();
  }

  /** The hostile garbage names the last write transaction found, as the error its call reports after the commit. */
  takeHostile(): SqliteStoreError | undefined {
    if (this.#hostile.length === 0) return undefined;
    const names = this.#hostile.map((file) => JSON.stringify(file)).join(', ');
    this.#hostile = [];
    return new SqliteStoreError('CORRUPT', this.#setup.path, `the garbage table named ${names}, not names this store writes: dropped, never removed (this call's own write was stored)`);
  }

  #setBudget(totals: Totals): void {
    const { bounds } = this.#setup;
    const share = (headroom: number) => (headroom > 0 ? Math.floor(headroom / HEADROOM_SHARE) : isOver(totals, bounds) ? -1 : 0);
    this.#budgetBytes = share(bounds.maxBytes - totals.bytes);
    this.#budgetEntries = share(bounds.maxEntries - totals.entries);
  }
}

/** The whole file's entries and bytes, as the triggers keep them. */
export function readTotals(s: Statements): Totals {
  const row = s.totals.get();
  return { entries: Number(row?.entries ?? 0), bytes: Number(row?.bytes ?? 0) };
}
