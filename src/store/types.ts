/**
 * The store contract: a store moves opaque bytes. It never sees a JavaScript value,
 * a Response, a TTL policy or a tag. Every adapter implements this, and one contract
 * suite (test/contract) proves it.
 */

/** One entry for {@link Store.setMany}. */
export interface StoreEntry {
  /** Full key, already prefixed by the engine. */
  key: string;
  /** The bytes to keep. The store may keep this exact buffer: callers must not mutate it later. */
  value: Uint8Array;
  /** Time to live in milliseconds; absent means "until evicted". */
  ttlMs?: number;
}

/**
 * One call inside a {@link Store.pipeline}. Each kind means exactly what the store method of
 * the same name means.
 */
export type StoreOp =
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'getMany'; readonly keys: readonly string[] }
  | { readonly kind: 'set'; readonly key: string; readonly value: Uint8Array; readonly ttlMs?: number | undefined }
  | { readonly kind: 'setMany'; readonly entries: readonly StoreEntry[] }
  | { readonly kind: 'delete'; readonly keys: readonly string[] }
  | { readonly kind: 'incr'; readonly key: string; readonly by: number; readonly ttlMs?: number | undefined };

/**
 * What one {@link StoreOp} produced: the bytes of a `get`, the list of a `getMany`, the count of
 * a `delete`, the new value of an `incr`, `undefined` for a write, or the Error that op failed with.
 */
export type StoreOpResult = Uint8Array | undefined | Array<Uint8Array | undefined> | number | Error;

/** A byte store. Returned bytes are read-only for the caller. */
export interface Store {
  /** Short name used in events and in logs ("memory", "valkey", …). */
  readonly name: string;
  /** Where the store lives, for messages ("127.0.0.1:6379", a file path, a REST host). */
  readonly address?: string;
  /**
   * Declares that the store answers from this process's memory: there is no round trip for
   * the engine to fold reads into and no call that can hang, so it skips read batching and
   * per-call timeouts (failures are still caught and reported).
   */
  readonly local?: boolean;
  /**
   * Declares that calls reach the store in the order they were issued, even while earlier ones
   * are still in flight (one TCP connection with pipelining does this; a pool of HTTP requests
   * does not). The engine then sends a lone call at once instead of holding it for the tick.
   */
  readonly ordered?: boolean;
  /**
   * The payload size from which compression is worth its CPU on this transport, when the cache
   * is not told otherwise: large for a server in the same data centre, small over HTTP where
   * every byte travels as text and is billed. Absent: never compress by default.
   */
  readonly compressionThreshold?: number;
  /** The bytes under `key`, or undefined when absent or expired. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** One result per key, in order; undefined marks a hole. One round trip on remote stores. */
  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>>;
  /** Stores `value` under `key`, replacing what was there. */
  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void>;
  /** Stores every entry; one round trip on remote stores. */
  setMany(entries: readonly StoreEntry[]): Promise<void>;
  /** Removes the keys and resolves with how many existed. */
  delete(keys: readonly string[]): Promise<number>;
  /**
   * Adds `by` to the decimal integer under `key` (absent counts as 0) and resolves with the
   * new value. `ttlMs` applies only when the key is created by this call.
   */
  incr(key: string, by: number, ttlMs?: number): Promise<number>;
  /**
   * Capability: runs `ops` in order in one round trip and resolves with one result per op. An
   * op that fails puts its Error in its own slot and does not fail the others; the promise
   * rejects only when the round trip itself failed.
   */
  pipeline?(ops: readonly StoreOp[]): Promise<StoreOpResult[]>;
  /** Capability: sets only if absent; resolves true when this call created the key (leases). */
  add?(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean>;
  /** Capability: deletes only while the stored bytes equal `expected` (releasing a lease by token). */
  compareAndDelete?(key: string, expected: Uint8Array): Promise<boolean>;
  /** Capability: removes every key that starts with `prefix`. */
  clear?(prefix: string): Promise<void>;
  /** Releases connections and timers the store opened itself. */
  close(): Promise<void>;
}
