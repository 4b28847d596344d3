/**
 * How one tick's keys are split for a cluster: a multi-key command (MGET, MSET, DEL) may only
 * name keys of one slot, so keys are grouped by slot, and each group becomes one command.
 * Groups keep the order in which their first key was seen, so the commands leave in the order
 * the calls were made.
 */
import type { StoreEntry } from '../../src/store/types.ts';
import { hashSlot } from './hash-slot.ts';

/** `items` by the slot of their key, in first-seen order, every item kept (for runs whose items each need their own answer). */
export function bySlot<T>(items: readonly T[], keyOf: (item: T) => string): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = hashSlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return groups;
}

/** Distinct keys by slot: a key asked for twice in one tick is read (or deleted) once. */
export class KeyGroups {
  /** Slot → its distinct keys, in first-seen order. */
  readonly bySlot = new Map<number, string[]>();
  readonly #seen = new Set<string>();

  /** Adds `key` to its slot's group, unless it is already there. */
  add(key: string): void {
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const slot = hashSlot(key);
    const group = this.bySlot.get(slot);
    if (group) group.push(key);
    else this.bySlot.set(slot, [key]);
  }
}

/** The writes of one slot: the last entry of each key, and the ops that carry them. */
export interface WriteGroup {
  /** Key → the entry that wins (a later set of a key replaces its value and its TTL). */
  readonly entries: Map<string, StoreEntry>;
  /** Indexes of the ops whose entries this group carries, each once, ascending. */
  readonly ops: number[];
}

/**
 * Writes by slot. Within a run of writes (no read in between) only the last write of a key can
 * be observed, so each key is written once with its last value: the commands of a group may then
 * leave in any order (one MSET for the entries without a TTL, one SET PX per entry with one).
 */
export class WriteGroups {
  /** Slot → its writes, in first-seen order. */
  readonly bySlot = new Map<number, WriteGroup>();

  /** Adds the entry of op number `op`. */
  add(entry: StoreEntry, op: number): void {
    const slot = hashSlot(entry.key);
    let group = this.bySlot.get(slot);
    if (!group) this.bySlot.set(slot, (group = { entries: new Map(), ops: [] }));
    group.entries.set(entry.key, entry);
    if (group.ops[group.ops.length - 1] !== op) group.ops.push(op);
  }
}
