/**
 * How a tick's ops ({@link Store.pipeline}) split into runs that a store can send as few
 * commands: consecutive reads (get, getMany) read together, consecutive writes (set, setMany)
 * write together, and consecutive deletes or increments are one run each (every caller still
 * needs its own count). Written once, for the engine's fallback (src/cache/path/ops.ts) and for
 * every store that folds a pipeline itself; a store author may use it too. Runtime-neutral.
 *
 * ```ts
 * for (let start = 0; start < ops.length; ) {
 *   const end = runEnd(ops, start);
 *   if (runKind(ops[start]!) === 'read') sendReads(ops, start, end); // …
 *   start = end;
 * }
 * ```
 */
import type { StoreEntry, StoreOp, StoreOpResult } from './types.ts';

/** What a run does: reads, writes, deletes or increments. */
export type RunKind = 'read' | 'write' | 'delete' | 'incr';

/** An increment inside a pipeline. */
export type IncrOp = Extract<StoreOp, { kind: 'incr' }>;

/** A delete inside a pipeline. */
export type DeleteOp = Extract<StoreOp, { kind: 'delete' }>;

/** The kind of run `op` belongs to. */
export function runKind(op: StoreOp): RunKind {
  switch (op.kind) {
    case 'get':
    case 'getMany':
      return 'read';
    case 'set':
    case 'setMany':
      return 'write';
    default:
      return op.kind;
  }
}

/** Where the run that starts at `start` ends (exclusive): the first op of another kind, or the end. */
export function runEnd(ops: readonly StoreOp[], start: number): number {
  const kind = runKind(ops[start]!);
  let end = start + 1;
  while (end < ops.length && runKind(ops[end]!) === kind) end++;
  return end;
}

/** How many keys the reads `ops[from, to)` name together. */
export function readKeyCount(ops: readonly StoreOp[], from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    count += op.kind === 'getMany' ? op.keys.length : 1;
  }
  return count;
}

/** The keys the reads `ops[from, to)` name, in order (a key named twice appears twice). */
export function readKeys(ops: readonly StoreOp[], from: number, to: number): string[] {
  const keys: string[] = [];
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    if (op.kind === 'get') keys.push(op.key);
    else if (op.kind === 'getMany') for (const key of op.keys) keys.push(key);
  }
  return keys;
}

/**
 * Puts `values` (one per key of {@link readKeys}, in that order) into the result slots of the
 * reads `ops[from, to)`: a get's value, or a getMany's list.
 */
export function spreadReads(ops: readonly StoreOp[], from: number, to: number, values: ReadonlyArray<Uint8Array | undefined>, results: StoreOpResult[]): void {
  let at = 0;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    if (op.kind === 'getMany') {
      results[i] = values.slice(at, at + op.keys.length);
      at += op.keys.length;
    } else results[i] = values[at++];
  }
}

/** The entries of the writes `ops[from, to)` in order, and for each the index of the op it came from. */
export interface RunEntries {
  readonly entries: StoreEntry[];
  readonly owners: number[];
}

/** Collects the entries of the writes `ops[from, to)` (see {@link RunEntries}). */
export function writeEntries(ops: readonly StoreOp[], from: number, to: number): RunEntries {
  const entries: StoreEntry[] = [];
  const owners: number[] = [];
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    if (op.kind === 'set') {
      // A set op has a StoreEntry's shape: key, value, ttlMs.
      entries.push(op as StoreEntry);
      owners.push(i);
    } else if (op.kind === 'setMany') {
      for (const entry of op.entries) {
        entries.push(entry);
        owners.push(i);
      }
    }
  }
  return { entries, owners };
}
