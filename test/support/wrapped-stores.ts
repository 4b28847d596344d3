/**
 * Stores that wrap a real store to count or to fail its calls, so that folding, guards and
 * fallbacks are tested by what reaches the store, not by timing (as bentocache's chaos and
 * counting wrappers do).
 */
import { StoreLayer } from '../../src/cache/path/layer.ts';
import type { ExpireRequest, GenerationRead, GenerationWrite, Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';

/** One call that reached the wrapped store: its method, and the kinds of op of a pipeline. */
export interface SeenCall {
  method: string;
  ops?: Array<StoreOp['kind']>;
}

/** Declarations a wrapper may override on top of the wrapped store's. */
export interface Declared {
  ordered?: boolean;
  local?: boolean;
  /** Hide the wrapped store's pipeline, to test the fallback for stores without one. */
  pipeline?: false;
}

/** Records every call before passing it on. */
export class CountingStore extends StoreLayer {
  readonly calls: SeenCall[] = [];
  override readonly ordered: boolean;
  override readonly local: boolean;

  constructor(next: Store, declared: Declared = {}) {
    super(next);
    this.ordered = declared.ordered ?? next.ordered === true;
    this.local = declared.local ?? next.local === true;
    if (declared.pipeline === false) (this as { pipeline?: unknown }).pipeline = undefined;
  }

  /** How many calls reached the store, by method. */
  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  reset(): void {
    this.calls.length = 0;
  }

  override get(key: string) {
    this.calls.push({ method: 'get' });
    return super.get(key);
  }
  override getMany(keys: readonly string[]) {
    this.calls.push({ method: 'getMany' });
    return super.getMany(keys);
  }
  override set(key: string, value: Uint8Array, ttlMs?: number) {
    this.calls.push({ method: 'set' });
    return super.set(key, value, ttlMs);
  }
  override setMany(entries: readonly StoreEntry[]) {
    this.calls.push({ method: 'setMany' });
    return super.setMany(entries);
  }
  override delete(keys: readonly string[]) {
    this.calls.push({ method: 'delete' });
    return super.delete(keys);
  }
  override incr(key: string, by: number, ttlMs?: number) {
    this.calls.push({ method: 'incr' });
    return super.incr(key, by, ttlMs);
  }
  override pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    this.calls.push({ method: 'pipeline', ops: ops.map((op) => op.kind) });
    return super.pipeline!(ops);
  }
  override add(key: string, value: Uint8Array, ttlMs?: number) {
    this.calls.push({ method: 'add' });
    return super.add!(key, value, ttlMs);
  }
  override compareAndDelete(key: string, expected: Uint8Array) {
    this.calls.push({ method: 'compareAndDelete' });
    return super.compareAndDelete!(key, expected);
  }
  override readWithGenerations(read: GenerationRead) {
    this.calls.push({ method: 'readWithGenerations' });
    return super.readWithGenerations!(read);
  }
  override writeGenerations(write: GenerationWrite) {
    this.calls.push({ method: 'writeGenerations' });
    return super.writeGenerations!(write);
  }
  override expireEntries(request: ExpireRequest) {
    this.calls.push({ method: 'expireEntries' });
    return super.expireEntries!(request);
  }
}

/** What a {@link FailingStore} does with a call. */
export type Fault = 'pass' | 'fail' | 'hang';

/** Fails or hangs reads and writes on demand; `calls` counts those that reached it. */
export class FailingStore extends StoreLayer {
  reads: Fault = 'pass';
  writes: Fault = 'pass';
  /** The error a failing call rejects with. */
  error: () => Error = () => new Error('connect ECONNREFUSED 127.0.0.1:1');
  calls = 0;
  /** Settles every hung call (with a failure), so that a test can end cleanly. */
  readonly #hung: Array<() => void> = [];

  constructor(next: Store, declared: Declared = {}) {
    super(next);
    if (declared.pipeline === false) (this as { pipeline?: unknown }).pipeline = undefined;
  }

  override get(key: string) {
    return this.#apply(this.reads, () => super.get(key));
  }
  override getMany(keys: readonly string[]) {
    return this.#apply(this.reads, () => super.getMany(keys));
  }
  override set(key: string, value: Uint8Array, ttlMs?: number) {
    return this.#apply(this.writes, () => super.set(key, value, ttlMs));
  }
  override setMany(entries: readonly StoreEntry[]) {
    return this.#apply(this.writes, () => super.setMany(entries));
  }
  override delete(keys: readonly string[]) {
    return this.#apply(this.writes, () => super.delete(keys));
  }
  override incr(key: string, by: number, ttlMs?: number) {
    return this.#apply(this.writes, () => super.incr(key, by, ttlMs));
  }
  override add(key: string, value: Uint8Array, ttlMs?: number) {
    return this.#apply(this.writes, () => super.add!(key, value, ttlMs));
  }
  override compareAndDelete(key: string, expected: Uint8Array) {
    return this.#apply(this.writes, () => super.compareAndDelete!(key, expected));
  }

  /** Rejects every call still hanging. */
  release(): void {
    for (const settle of this.#hung.splice(0)) settle();
  }

  #apply<T>(fault: Fault, call: () => Promise<T>): Promise<T> {
    this.calls++;
    if (fault === 'pass') return call();
    if (fault === 'fail') return Promise.reject(this.error());
    return new Promise<T>((_, reject) => this.#hung.push(() => reject(new Error('released'))));
  }
}

/** A store offering only the base contract (Workers KV, third-party stores): no scripts, no fences, no expireEntries. */
export function baseOnly(inner: Store): Store {
  return {
    name: 'base-only',
    get: (k) => inner.get(k),
    getMany: (k) => inner.getMany(k),
    set: (k, v, t) => inner.set(k, v, t),
    setMany: (e) => inner.setMany(e),
    delete: (k) => inner.delete(k),
    incr: (k, b, t) => inner.incr(k, b, t),
    close: () => inner.close(),
  };
}
