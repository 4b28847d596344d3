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

/**
 * The two keys behind one tag, as the engine names them (src/cache/key-space.ts): its
 * generation counter and the set of write leases ("fences") held on it. They share a hash tag,
 * so on a cluster both live in one slot and one script may read them together.
 */
export interface TagKeys {
  /** A decimal counter, like {@link Store.incr}'s. Missing means the tag has no generation yet. */
  readonly generation: string;
  /** The write leases held on the tag, each a token with its own expiry (the store's format). */
  readonly fence: string;
  /**
   * The record of the tag's latest run of soft moves ({@link GenerationWrite} `soft`), as the
   * text `from:to:at`: every move of the generation from `from` up to `to` was soft, the last
   * one at `at` (ms, the invalidating cache's clock). A store that keeps no such record makes
   * every move hard, which is always safe.
   */
  readonly soft: string;
}

/** What {@link Store.readWithGenerations} reads, atomically for each tag. */
export interface GenerationRead {
  /** Entry keys to read. */
  readonly keys: readonly string[];
  /**
   * Per key, the first bytes of a copy the caller already holds (an L1 copy), or undefined.
   * When the stored value still starts with exactly these bytes it is not sent back: its slot
   * says `'unchanged'` instead. Envelopes make 36 bytes enough to tell two writes apart.
   */
  readonly knownPrefixes?: ReadonlyArray<Uint8Array | undefined>;
  /** Tags whose current state to read. */
  readonly tags: readonly TagKeys[];
  /**
   * The generation a missing counter starts from. The store creates it with this value as part
   * of the read, so that what the caller records is a real generation, and an evicted counter
   * comes back at a random epoch instead of restarting where old entries may still point.
   */
  readonly epoch: number;
}

/** A tag as {@link Store.readWithGenerations} found it. */
export interface TagState {
  /** The current generation. */
  readonly generation: number;
  /** True while at least one write lease on the tag is held and not expired. */
  readonly fenced: boolean;
  /**
   * Present when the latest moves of the generation, up to the current one, were all soft: an
   * entry that recorded a generation from `soft.from` (included) up to the current one
   * (excluded) is stale, not gone, since `soft.at`. Absent when the last move was hard, or
   * when no soft move is recorded.
   */
  readonly soft?: SoftMoves;
}

/** A tag's latest run of soft moves, as {@link Store.readWithGenerations} found it. */
export interface SoftMoves {
  /** The generation the run started from: entries that recorded it, or a later one, are stale. */
  readonly from: number;
  /** When the run's last move happened (ms, the invalidating cache's clock). */
  readonly at: number;
}

/** The answer of {@link Store.readWithGenerations}: one slot per key, one state per tag. */
export interface GenerationReadResult {
  /** The stored bytes, `'unchanged'` (the known prefix still matches), or undefined when absent. */
  readonly values: Array<Uint8Array | 'unchanged' | undefined>;
  readonly tags: TagState[];
}

/**
 * What {@link Store.writeGenerations} does to every tag it names, atomically per tag:
 * - `bump`: increments each generation (a missing one is created at `epoch`);
 * - `soft`: a bump that records itself in the tag's soft record ({@link TagKeys.soft}): it
 *   extends the run of soft moves when the last move was one, else starts a new run from the
 *   generation before it, at time `now`. A hard move leaves the record behind (its `to` no
 *   longer names the current generation), so readers tell the two apart without a clock;
 * - `hold`: adds `token` to each fence with its own expiry, then bumps (a fenced write begins);
 * - `commit`: bumps, then removes `token` from each fence (the write committed);
 * - `release`: removes `token` only (the write was rolled back: nothing to invalidate).
 */
export interface GenerationWrite {
  readonly action: 'bump' | 'soft' | 'hold' | 'commit' | 'release';
  readonly tags: readonly TagKeys[];
  readonly epoch: number;
  /** The writer's token, for every action but `bump`. */
  readonly token?: string;
  /** How long a held token lasts, in ms (for `hold`): a crashed writer fences no longer than this. */
  readonly ttlMs?: number;
  /** The time of a `soft` move (ms, the invalidating cache's clock), recorded for readers' grace windows. */
  readonly now?: number;
}

/** What {@link Store.expireEntries} does: entries fresh at `now` turn stale at `now`. */
export interface ExpireRequest {
  /** Entry keys (full store keys). */
  readonly keys: readonly string[];
  /** The time the entries turn stale at (ms, the expiring cache's clock). */
  readonly now: number;
}

/**
 * Receives server-assisted invalidations ({@link Store.track}). Keys are full store keys that
 * changed after this store's connection read them (by any cache sharing the store).
 */
export interface InvalidationListener {
  /** These keys changed (or were evicted, or expired) on the server. */
  invalidated(keys: readonly string[]): void;
  /** Anything may have changed: the server flushed, or invalidations may have been lost. */
  flushed(): void;
  /**
   * Invalidations are delivered (true) or not (false): while false, nothing read may be trusted
   * to be invalidated later. Every change to false comes with a {@link flushed} first.
   */
  liveChanged(live: boolean): void;
}

/** A registration made by {@link Store.track}. */
export interface Tracking {
  /** True while invalidations for what the store reads are being delivered. */
  readonly live: boolean;
  /**
   * A number that changes every time tracking is lost: a read issued in one session and
   * answered in another may have missed its invalidation.
   */
  readonly session: number;
  /** Stops delivering to this listener (the store stops tracking when nobody listens). */
  close(): Promise<void>;
}

/**
 * Receives what the coherence bus ({@link Store.coherence}) learns: keys are full store keys
 * (entries and tag generation counters) that another cache changed through its store.
 */
export interface CoherenceListener {
  /**
   * These keys changed: drop what was read from them. `removed` is true when the write removed
   * them (a delete), false or absent when it wrote them or could not say (a writer that does not
   * tell).
   */
  invalidated(keys: readonly string[], removed?: boolean): void;
  /** Anything may have changed: drop everything. */
  flushed(): void;
  /**
   * Copies may be served (true) or not (false) from now on. Every change to false comes with
   * a {@link flushed} first.
   */
  liveChanged(live: boolean): void;
}

/** How {@link Store.coherence} is asked to hold copies. */
export interface CoherenceOptions {
  /**
   * `lease` (the default): a process serves copies while it holds a lease it renews over the
   * bus, and a write returns once every holder of the keys acknowledged the invalidation or
   * its lease ran out. `barrier`: writes only publish, and a copy is served once a barrier sent
   * over the bus after the read began comes back (one round trip per tick of reads).
   */
  readonly confirm: 'lease' | 'barrier';
  /**
   * A watcher instead of a holder: it keeps no copies, and hears of every key's invalidation
   * once the write behind it executed (its own process's writes included, none before they
   * executed), acknowledging each at once, so that a writer never waits a lease for it. For
   * `watch` of the unstorage driver. A bus that cannot name the keys it invalidates (SQLite's
   * change counter) refuses it with a TypeError. {@link Coherence.barrier} of a watcher
   * resolves once every key is watched (true), or false when the bus closed first.
   */
  readonly watcher?: boolean;
}

/**
 * A cache's registration with the coherence bus of its store ({@link Store.coherence}): what
 * lets an L1 tier serve copies with no round trip and never stale with respect to the writes
 * of any cache sharing the store.
 */
export interface Coherence {
  /**
   * Whether copies may be served at this instant (lease held and bus live; on an embedded store
   * shared by processes, nothing committed by another process since it was last asked). Called
   * on every hit: cheap, synchronous, and it may call the listener (a flush) before answering.
   */
  serving(): boolean;
  /** Changes whenever invalidations may have been lost: a read answered in another session than it was issued in is not kept. */
  readonly session: number;
  /** A mark to take when a read is issued, for {@link covered}. */
  readonly mark: number;
  /**
   * True when every key was watched (invalidations of it delivered to this process) since
   * before `mark` was taken, in the current session; otherwise starts watching the missing
   * ones and answers false (the read is served, not kept). `watchMissing: false`: answers
   * only, watching nothing more (a write kept as a copy must not make its writer a holder).
   */
  covered(keys: readonly string[], mark: number, watchMissing?: boolean): boolean;
  /**
   * In `barrier` mode: resolves once everything published on the bus before this call has
   * reached this process (true), or false when that cannot be confirmed (the bus is down).
   */
  barrier(): Promise<boolean>;
  /**
   * This cache wrote `keys` (undefined: anything, as `clear` does); `written` is the write,
   * issued before this call on the store (on a store that keeps the order of calls in flight,
   * what is published here executes after it). Resolves once no other process can serve a
   * copy read before the write, rejects when that cannot be known (the bus could not publish).
   * `removed`: the write removed the keys (watchers are told; see {@link CoherenceListener.invalidated}).
   */
  invalidate(keys: readonly string[] | undefined, written: Promise<unknown>, removed?: boolean): Promise<void>;
  /** Stops delivering to this listener (the bus closes when nobody listens). */
  close(): Promise<void>;
}

/** One step of a walk over a store's keys ({@link Store.keys}). */
export interface KeyPage {
  /** Keys found in this step (it may find none while the walk goes on). */
  readonly keys: readonly string[];
  /** Where the next step starts (pass it to the next call); absent once the walk is complete. */
  readonly cursor?: string;
}

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
  /**
   * Capability: {@link set} of one entry, `set(entry.key, entry.value, entry.ttlMs)`, for a
   * store that writes an entry whose bytes are made on demand (the engine's text entries) into
   * a buffer of its own without making them first.
   */
  setEntry?(entry: StoreEntry): Promise<void>;
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
  /**
   * Capability: one step of a walk over the keys that start with `prefix`: called without a
   * cursor to start, then with each page's cursor until a page has none. Each step is one round
   * trip with a bounded answer (a SCAN step, a batch of rows). A key present for the whole walk is
   * listed at least once (SCAN may list one twice); keys written or removed during the walk may
   * or may not be. Expired keys the store has not dropped yet may be listed: a read tells.
   */
  keys?(prefix: string, cursor?: string): Promise<KeyPage>;
  /**
   * Capability: reads entries together with the current state of tags, in one round trip, each
   * tag's generation and fence read atomically (a script on Redis-protocol stores, a transaction
   * on embedded ones). Without it the engine reads counters with getMany and has no fences.
   */
  readWithGenerations?(read: GenerationRead): Promise<GenerationReadResult>;
  /**
   * Capability of a `local` store whose reads are synchronous underneath (memory; SQLite through
   * a synchronous driver): what {@link get} would resolve with, returned at once. It must see
   * every call issued before it, settled or not (a write the store still holds for the end of
   * the tick included), and throws what `get` would reject with, except where `get` would
   * wait (a lock another process holds): it throws a `StoreBusyError` then, and the engine
   * calls `get`. With it the engine answers a read without a promise chain per layer: a
   * `cache.get` costs the store's read plus the entry's decoding.
   */
  getSync?(key: string): Uint8Array | undefined;
  /** Capability: {@link getMany} synchronously, on the terms of {@link getSync}. */
  getManySync?(keys: readonly string[]): Array<Uint8Array | undefined>;
  /** Capability: {@link readWithGenerations} synchronously, on the terms of {@link getSync} (a tagged read of a local store). */
  readWithGenerationsSync?(read: GenerationRead): GenerationReadResult;
  /**
   * Capability: for every key that holds an entry envelope fresh at `now` (src/codec/envelope.ts),
   * rewrites its header so that it turned stale at `now` and keeps its grace, and its TTL to
   * that grace, atomically per key and in one round trip; resolves how many it rewrote. Values
   * that are no envelope, or not fresh, are left alone. Without it the engine reads and
   * rewrites the entries itself (two round trips, and a write racing them may be overwritten).
   */
  expireEntries?(request: ExpireRequest): Promise<number>;
  /** Capability: bumps generations and holds or releases write leases, atomically per tag (see {@link GenerationWrite}). */
  writeGenerations?(write: GenerationWrite): Promise<void>;
  /**
   * Capability: delivers invalidations of every key this store's connection reads (Valkey/Redis
   * CLIENT TRACKING), for an in-process L1 tier that serves without a round trip.
   */
  track?(listener: InvalidationListener): Tracking;
  /**
   * Capability: an invalidation bus between the processes sharing this store, for an L1 tier
   * that is never stale (`l1: { consistency: 'coherent' }`): pub/sub with leased holders on
   * Valkey/Redis, LISTEN/NOTIFY with leased holders on PostgreSQL, the database's change counter
   * on SQLite. See {@link Coherence}.
   */
  coherence?(listener: CoherenceListener, options: CoherenceOptions): Coherence;
  /** Releases connections and timers the store opened itself. */
  close(): Promise<void>;
}
