import type { StoreEntry } from '../store/types.ts';

/** How the batcher reaches the store; each function is already guarded (timeout, breaker). */
export interface BatchTarget {
  readOne(key: string): Promise<Uint8Array | undefined>;
  /** Resolves undefined (all misses) when the store failed. */
  readMany(keys: string[]): Promise<Array<Uint8Array | undefined> | undefined>;
  writeOne(entry: StoreEntry): Promise<boolean>;
  writeMany(entries: StoreEntry[]): Promise<boolean>;
}

const READ = 0;
const WRITE = 1;
const CALL = 2;

interface Op {
  kind: typeof READ | typeof WRITE | typeof CALL;
  key: string;
  entry: StoreEntry | undefined;
  call: (() => Promise<unknown>) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Folds the store calls issued in one tick into as few round trips as possible, in the order
 * they were issued: a run of single-key reads becomes one getMany (one MGET), a run of writes
 * one setMany (one pipelined write), and any other call goes out as it is, between them.
 * Fifty concurrent `get`s cost the server one command and the client one reply to parse,
 * which is how the engine outruns a plain client call per key. Keeping every call in the one
 * queue keeps the order the caller issued them in: `set(k)` then `delete(k)` in the same tick
 * never reaches the store the other way round.
 */
export class TickBatcher {
  #queue: Op[] = [];

  constructor(private readonly target: BatchTarget) {}

  /** The bytes under `key`, read together with the other reads of this tick. */
  read(key: string): Promise<Uint8Array | undefined> {
    return this.#push(READ, key, undefined, undefined);
  }

  /** Writes `entry` together with the other writes of this tick; resolves whether it was stored. */
  write(entry: StoreEntry): Promise<boolean> {
    return this.#push(WRITE, entry.key, entry, undefined);
  }

  /** Issues `call` in its place in this tick's order. */
  call<T>(call: () => Promise<T>): Promise<T> {
    return this.#push(CALL, '', undefined, call);
  }

  #push<T>(kind: Op['kind'], key: string, entry: StoreEntry | undefined, call: (() => Promise<unknown>) | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queue.length === 0) queueMicrotask(() => this.#flush());
      this.#queue.push({ kind, key, entry, call, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #flush(): void {
    const ops = this.#queue;
    this.#queue = [];
    for (let start = 0; start < ops.length; ) {
      const kind = ops[start]!.kind;
      let end = start + 1;
      if (kind !== CALL) while (end < ops.length && ops[end]!.kind === kind) end++;
      this.#issue(kind, ops.slice(start, end));
      start = end;
    }
  }

  #issue(kind: Op['kind'], ops: Op[]): void {
    const first = ops[0]!;
    if (kind === CALL) {
      first.call!().then(first.resolve, first.reject);
    } else if (ops.length === 1) {
      (kind === READ ? this.target.readOne(first.key) : this.target.writeOne(first.entry!)).then(first.resolve, first.reject);
    } else if (kind === READ) {
      this.target.readMany(ops.map((op) => op.key)).then(
        (values) => ops.forEach((op, i) => op.resolve(values?.[i])),
        (error: unknown) => ops.forEach((op) => op.reject(error)),
      );
    } else {
      this.target.writeMany(ops.map((op) => op.entry!)).then(
        (stored) => ops.forEach((op) => op.resolve(stored)),
        (error: unknown) => ops.forEach((op) => op.reject(error)),
      );
    }
  }
}
