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

/** A byte store. Returned bytes are read-only for the caller. */
export interface Store {
  /** Short name used in events and in logs ("memory", "valkey", …). */
  readonly name: string;
  /**
   * Declares that the store answers from this process's memory: there is no round trip for
   * the engine to fold reads into and no call that can hang, so it skips read batching and
   * per-call timeouts (failures are still caught and reported).
   */
  readonly local?: boolean;
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
  /** Capability: sets only if absent; resolves true when this call created the key (leases). */
  add?(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean>;
  /** Capability: deletes only while the stored bytes equal `expected` (releasing a lease by token). */
  compareAndDelete?(key: string, expected: Uint8Array): Promise<boolean>;
  /** Capability: removes every key that starts with `prefix`. */
  clear?(prefix: string): Promise<void>;
  /** Releases connections and timers the store opened itself. */
  close(): Promise<void>;
}
