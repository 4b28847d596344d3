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
 * methods allow: a run of reads becomes one getMany, a run of writes one setMany, and deletes
 * and increments go one by one (each caller needs its own count). On a store that keeps the
 * order of calls in flight, everything is sent at once; otherwise each call waits for the one
 * before, so that a write can never overtake a read issued before it.
 */
export async function runInOrder(store: Store, ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
  const results: StoreOpResult[] = new Array<StoreOpResult>(ops.length);
  const pending: Array<Promise<void>> = [];
  for (let start = 0; start < ops.length; ) {
    const kind = groupOf(ops[start]!);
    let end = start + 1;
    if (kind !== 'single') while (end < ops.length && groupOf(ops[end]!) === kind) end++;
    const call = issueGroup(store, ops, start, end, kind, results);
    if (store.ordered) pending.push(call);
    else await call;
    start = end;
  }
  await Promise.all(pending);
  return results;
}

type Group = 'read' | 'write' | 'single';

function groupOf(op: StoreOp): Group {
  if (op.kind === 'get' || op.kind === 'getMany') return 'read';
  if (op.kind === 'set' || op.kind === 'setMany') return 'write';
  return 'single';
}

/** Issues ops[start, end) as one store call and fills their result slots; never rejects. */
function issueGroup(store: Store, ops: readonly StoreOp[], start: number, end: number, group: Group, results: StoreOpResult[]): Promise<void> {
  const fail = (error: unknown) => {
    for (let i = start; i < end; i++) results[i] = toError(error);
  };
  if (end - start === 1) return sendOp(store, ops[start]!).then((value) => void (results[start] = value), fail);
  if (group === 'read') {
    const keys: string[] = [];
    for (let i = start; i < end; i++) {
      const op = ops[i]!;
      if (op.kind === 'get') keys.push(op.key);
      else if (op.kind === 'getMany') keys.push(...op.keys);
    }
    return store.getMany(keys).then((values) => {
      let at = 0;
      for (let i = start; i < end; i++) {
        const op = ops[i]!;
        if (op.kind === 'getMany') {
          results[i] = values.slice(at, at + op.keys.length);
          at += op.keys.length;
        } else results[i] = values[at++];
      }
    }, fail);
  }
  const entries = [];
  for (let i = start; i < end; i++) {
    const op = ops[i]!;
    if (op.kind === 'set') entries.push({ key: op.key, value: op.value, ttlMs: op.ttlMs });
    else if (op.kind === 'setMany') entries.push(...op.entries);
  }
  return store.setMany(entries).then(() => {
    for (let i = start; i < end; i++) results[i] = undefined;
  }, fail);
}

/** `error` as an Error, so that it can sit in a result slot. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
