import { StoreClosedError } from '../../src/store/errors.ts';
import type { Store, StoreEntry } from '../../src/store/types.ts';
import { formatCounter, parseCounter } from '../../src/store/layout/counter.ts';
import { checkKnownOptions, checkOptionsObject } from '../../src/util/known-options.ts';

/**
 * The part of a Workers KV namespace binding this store uses, typed structurally so that no
 * Cloudflare package is imported: any object with these methods works (the real binding,
 * miniflare's, or a KV-compatible shim).
 */
export interface KVNamespaceLike {
  getWithMetadata(key: string, type: 'arrayBuffer'): Promise<{ value: ArrayBuffer | null; metadata: unknown }>;
  put(key: string, value: ArrayBuffer | ArrayBufferView, options?: { expirationTtl?: number; metadata?: unknown }): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix?: string; cursor?: string | null; limit?: number }): Promise<{ keys: Array<{ name: string }>; list_complete: boolean; cursor?: string }>;
}

/** Options of {@link cloudflareKvStore}. */
export interface CloudflareKvStoreOptions {
  /** The KV namespace binding (`env.CACHETTE_KV` in a Worker). */
  namespace: KVNamespaceLike;
  /** Most KV calls in flight at once for batch operations. Default 50. */
  concurrency?: number;
}

/** KV refuses an `expirationTtl` below 60 seconds. */
export const KV_MIN_TTL_SECONDS = 60;
/** The Workers binding takes `expirationTtl` as a 32-bit integer: longer TTLs are capped (about 68 years). */
export const KV_MAX_TTL_SECONDS = 2 ** 31 - 1;
/** KV refuses keys longer than 512 bytes. */
export const KV_MAX_KEY_BYTES = 512;

// What is kept of a too-long key before its digest: "#" + 64 hex digits must still fit.
const LONG_KEY_HEAD_BYTES = KV_MAX_KEY_BYTES - 65;

/** Metadata written next to every value that has a TTL: the exact expiry, in ms since the epoch. */
interface ExpiryMetadata {
  x: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A store on a Cloudflare Workers KV namespace. KV is not Redis, and this store says so
 * instead of pretending:
 *
 * - **TTLs.** KV deletes a key no sooner than 60 s after it is written. A TTL below that is
 *   still honoured exactly on read: every value with a TTL carries its precise expiry in KV
 *   metadata, and a read past it is a miss. KV itself is told `max(60, ceil(ttl/1000))` s, so
 *   a short-lived value keeps occupying KV (and counts against storage) for up to 60 s. The
 *   expiry is compared with the reading isolate's clock, so it is as exact as clocks agree
 *   between Cloudflare locations. TTLs beyond 2^31−1 s (the binding's integer limit) are capped
 *   there, which only matters to values meant to outlive the 2090s.
 * - **Eventual consistency.** A write is visible at once in the location that made it and
 *   within about 60 s elsewhere. A value another location just deleted or replaced may be
 *   served from a location's cache meanwhile; tag invalidations propagate with the same delay.
 * - **No atomic operations.** There is no set-if-absent and no compare-and-delete, so this store
 *   does not offer `add` or `compareAndDelete`: the engine never believes it holds a lease, and
 *   concurrent misses are coalesced only within one isolate (each isolate may call the origin
 *   once per key).
 * - **Counters.** `incr` is a read-modify-write, not atomic across isolates or locations:
 *   concurrent increments of one counter may be lost (counts come out low). It is kept because
 *   tag generations only need "the value changed", which a lost increment still achieves
 *   (two racing bumps yield one new generation, not none); do not use it for exact counting
 *   such as rate limits.
 * - **Keys.** A key longer than 512 UTF-8 bytes is stored under its first 447 bytes plus a
 *   SHA-256 of the whole key, so long URLs still cache and `clear(prefix)` still finds them
 *   as long as the prefix is shorter than that head.
 * - **Batches.** KV's bulk get returns only text or JSON, and cache entries are binary, so
 *   `getMany` issues parallel single gets (bounded by `concurrency`). A Worker invocation may
 *   make at most 1,000 KV calls on the paid plan; batches count one call per key.
 */
export class CloudflareKvStore implements Store {
  readonly name = 'cloudflare-kv';
  /**
   * KV keeps bytes as they are and bills by operation, not by byte, while compression runs in
   * plain JavaScript on the edge: only large values are worth it.
   */
  readonly compressionThreshold = 32 * 1024;
  readonly #kv: KVNamespaceLike;
  readonly #concurrency: number;
  #closed = false;

  constructor(options: CloudflareKvStoreOptions) {
    checkOptionsObject(options, 'cloudflareKvStore()');
    checkKnownOptions(options, ['namespace', 'concurrency'] satisfies ReadonlyArray<keyof CloudflareKvStoreOptions>, 'cloudflareKvStore()');
    const kv = options?.namespace as Partial<KVNamespaceLike> | undefined;
    for (const method of ['getWithMetadata', 'put', 'delete', 'list'] as const) {
      if (typeof kv?.[method] !== 'function') throw new TypeError(`cloudflareKvStore: "namespace" must be a Workers KV binding (it lacks ${method}())`);
    }
    this.#kv = kv as KVNamespaceLike;
    this.#concurrency = options.concurrency ?? 50;
    if (!Number.isInteger(this.#concurrency) || this.#concurrency < 1) throw new RangeError(`cloudflareKvStore: concurrency must be a positive integer, got ${this.#concurrency}`);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.#check();
    return (await this.#read(key)).value;
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    this.#check();
    return mapLimited(keys, this.#concurrency, async (k) => (await this.#read(k)).value);
  }

  async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    this.#check();
    await this.#write(key, value, ttlMs === undefined ? undefined : Date.now() + ttlMs);
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    this.#check();
    const now = Date.now();
    await mapLimited(entries, this.#concurrency, (e) => this.#write(e.key, e.value, e.ttlMs === undefined ? undefined : now + e.ttlMs));
  }

  async delete(keys: readonly string[]): Promise<number> {
    this.#check();
    // KV's delete does not say whether the key existed: read first to count. Not atomic, like
    // everything on KV; the count is what this location saw.
    const existed = await mapLimited(keys, this.#concurrency, async (key) => {
      const { value } = await this.#read(key);
      await this.#kv.delete(await kvKey(key));
      return value !== undefined;
    });
    return existed.filter(Boolean).length;
  }

  async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    this.#check();
    // Read-modify-write: see the class comment for why this is acceptable only for generations.
    const { value, expiresAt } = await this.#read(key);
    const next = (value ? parseCounter(value, key) : 0) + by;
    if (!Number.isSafeInteger(next)) throw new RangeError(`increment or decrement would overflow for key "${key}"`);
    // An existing counter keeps its own expiry (or none); a new one takes `ttlMs`.
    const expiry = value ? expiresAt : ttlMs === undefined ? undefined : Date.now() + ttlMs;
    await this.#write(key, formatCounter(next), expiry);
    return next;
  }

  async clear(prefix: string): Promise<void> {
    this.#check();
    // Listing is eventually consistent too: keys written elsewhere in the last minute may survive.
    let cursor: string | undefined;
    do {
      const page = await this.#kv.list({ prefix, cursor: cursor ?? null });
      await mapLimited(page.keys, this.#concurrency, (k) => this.#kv.delete(k.name));
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
  }

  /** The binding belongs to the Worker: nothing to release; every later call rejects with a StoreClosedError. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #check(): void {
    if (this.#closed) throw new StoreClosedError(this.name);
  }

  async #read(key: string): Promise<{ value: Uint8Array | undefined; expiresAt: number | undefined }> {
    const { value, metadata } = await this.#kv.getWithMetadata(await kvKey(key), 'arrayBuffer');
    if (value === null) return { value: undefined, expiresAt: undefined };
    const expiresAt = isExpiry(metadata) ? metadata.x : undefined;
    if (expiresAt !== undefined && expiresAt <= Date.now()) return { value: undefined, expiresAt: undefined };
    return { value: new Uint8Array(value), expiresAt };
  }

  async #write(key: string, value: Uint8Array, expiresAt: number | undefined): Promise<void> {
    const name = await kvKey(key);
    if (expiresAt === undefined) {
      await this.#kv.put(name, value);
      return;
    }
    const remainingMs = expiresAt - Date.now();
    if (!(remainingMs > 0)) {
      // Already expired, as PX would refuse and EXPIRE would delete: do not keep the old value either.
      await this.#kv.delete(name);
      return;
    }
    const metadata: ExpiryMetadata = { x: expiresAt };
    const expirationTtl = Math.min(KV_MAX_TTL_SECONDS, Math.max(KV_MIN_TTL_SECONDS, Math.ceil(remainingMs / 1000)));
    await this.#kv.put(name, value, { expirationTtl, metadata });
  }
}

/** Creates a store on a Workers KV namespace binding. */
export function cloudflareKvStore(options: CloudflareKvStoreOptions): CloudflareKvStore {
  return new CloudflareKvStore(options);
}

/** True when `value` has the methods {@link CloudflareKvStore} needs: used to recognise a binding in `env`. */
export function isKvNamespace(value: unknown): value is KVNamespaceLike {
  const binding = value as Partial<Record<keyof KVNamespaceLike, unknown>> | null;
  return typeof binding === 'object' && binding !== null && ['getWithMetadata', 'put', 'delete', 'list'].every((method) => typeof binding[method as keyof KVNamespaceLike] === 'function');
}

function isExpiry(metadata: unknown): metadata is ExpiryMetadata {
  return typeof metadata === 'object' && metadata !== null && typeof (metadata as ExpiryMetadata).x === 'number';
}

/** The KV key for `key`: itself when short enough, else a head of it plus its SHA-256. */
async function kvKey(key: string): Promise<string> {
  const utf8 = encoder.encode(key);
  if (utf8.length <= KV_MAX_KEY_BYTES) return key;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8));
  // Decoding a cut that splits a character would add U+FFFD (3 bytes): drop the partial character instead.
  let end = LONG_KEY_HEAD_BYTES;
  while (end > 0 && (utf8[end]! & 0xc0) === 0x80) end--;
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${decoder.decode(utf8.subarray(0, end))}#${hex}`;
}

/** Maps with at most `limit` calls in flight, keeping order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
