import { readKeys, runEnd, runKind, spreadReads, writeEntries, type RunKind } from '../../store/op-runs.ts';
import type { Store, StoreOp, StoreOpResult } from '../../store/types.ts';

/** Sends one op to `store` through the method of the same name. */
export function sendOp(store: Store, op: StoreOp): Promise<StoreOpResult> {
  switch (op.kind) {
    case 'get':
      return store.get(op.key);
    case 'getMany':
      return store.getMany(op.keys);
    case 'set':
      // A write resolves with nothing: void is undefined at run time.
      return store.set(op.key, op.value, op.ttlMs) as Promise<unknown> as Promise<undefined>;
    case 'setMany':
      return store.setMany(op.entries) as Promise<unknown> as Promise<undefined>;
    case 'delete':
      return store.delete(op.keys);
    case 'incr':
      return store.incr(op.key, op.by, op.ttlMs);
  }
}

/**
 * Runs `ops` in order on a store without {@link Store.pipeline}, in as few calls as its
 * methods allow (runs as src/store/op-runs.ts groups them): a run of reads becomes one getMany,
 * a run of writes one setMany, and deletes and increments go one by one (each caller needs its
 * own count). On a store that keeps the order of calls in flight, everything is sent at once;
 * otherwise each call waits for the one before, so that a write can never overtake a read
 * issued before it.
 */
export async function runInOrder(store: Store, ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
  const results: StoreOpResult[] = new Array<StoreOpResult>(ops.length);
  const pending: Array<Promise<void>> = [];
  for (let start = 0; start < ops.length; ) {
    const kind = runKind(ops[start]!);
    // Deletes and increments each need their own answer: one call per op.
    const end = kind === 'read' || kind === 'write' ? runEnd(ops, start) : start + 1;
    const call = issueRun(store, ops, start, end, kind, results);
    if (store.ordered) pending.push(call);
    else await call;
    start = end;
  }
  await Promise.all(pending);
  return results;
}

/** Issues ops[start, end) as one store call and fills their result slots; never rejects. */
function issueRun(store: Store, ops: readonly StoreOp[], start: number, end: number, kind: RunKind, results: StoreOpResult[]): Promise<void> {
  const fail = (error: unknown) => {
    for (let i = start; i < end; i++) results[i] = toError(error);
  };
  if (end - start === 1) return sendOp(store, ops[start]!).then((value) => void (results[start] = value), fail);
  if (kind === 'read') return store.getMany(readKeys(ops, start, end)).then((values) => spreadReads(ops, start, end, values, results), fail);
  return store.setMany(writeEntries(ops, start, end).entries).then(() => {
    for (let i = start; i < end; i++) results[i] = undefined;
  }, fail);
}

/** `error` as an Error, so that it can sit in a result slot. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
