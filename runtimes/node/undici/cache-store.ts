/**
 * A `CacheStore` for undici's `interceptors.cache()`: outbound responses (`fetch` through a
 * dispatcher composed with the interceptor) are kept in a cachette cache, so on Valkey, Upstash
 * or SQLite they are shared by every process, under the cache's key space and tags. undici keeps
 * the HTTP rules (freshness, Vary, revalidation, stale-while-revalidate, invalidation by unsafe
 * methods); the store keeps what it is handed, as undici's own memory store does.
 *
 * Per URL (origin and path) one index entry lists the stored variants (method and the request
 * headers the response varies on), each kept in an entry of its own with its body; a read is the
 * index, then the variant. `delete` (undici calls it after an unsafe method) removes the index,
 * so every variant of the URL is gone at once. Every entry is tagged with its origin
 * ({@link undiciOriginTag}): `cache.invalidateTags([undiciOriginTag(origin)])` drops an origin
 * in every process. It lives in runtimes/ because undici writes bodies through a Node Writable.
 */
import { Buffer } from 'node:buffer';
import { Writable } from 'node:stream';
import type CacheHandler from 'undici/types/cache-interceptor.js';
import { adapterCache } from '../../../src/cache/store-or-cache.ts';
import type { Cache } from '../../../src/cache/types.ts';
import type { Store } from '../../../src/store/types.ts';
import { checkKnownOptions, checkOptionsObject } from '../../../src/util/known-options.ts';

type CacheKey = CacheHandler.CacheKey;
type CacheValue = CacheHandler.CacheValue;
type GetResult = CacheHandler.GetResult;
type Vary = Record<string, string | string[] | null>;

/** Options of {@link undiciStore}. */
export interface UndiciStoreOptions {
  /**
   * Where responses live: a cachette store (a cache is built over it, closed by `close()`), or a
   * cache from `createCache()` (shared: its prefix, timeouts, L1 and events apply).
   */
  store: Store | Cache;
  /** Largest body stored, in bytes; a larger one is passed through, not stored. Default 5 MiB (undici's memory store's). */
  maxEntrySize?: number;
  /** Most variants (Vary) kept per URL; the oldest go first. Default 32. */
  maxVariants?: number;
  /** More tags for a response, e.g. from its `cache-tag` header, for `cache.invalidateTags`. The origin's is always there. */
  tags?: (key: CacheKey, value: CacheValue) => readonly string[];
}

/** The index of one URL: its variants, newest first. */
interface StoredIndex {
  readonly variants: readonly IndexedVariant[];
}

interface IndexedVariant {
  readonly id: string;
  readonly method: string;
  readonly vary?: Vary;
  readonly deleteAt: number;
}

/** One variant: what undici handed in, and its body. */
interface StoredVariant extends CacheValue {
  readonly body: Uint8Array;
}

const KNOWN: ReadonlyArray<keyof UndiciStoreOptions> = ['store', 'maxEntrySize', 'maxVariants', 'tags'];
const DEFAULT_MAX_ENTRY_SIZE = 5 * 1024 * 1024;
const DEFAULT_MAX_VARIANTS = 32;
/** Longest origin + path kept (a key segment has a bound); a longer URL is not cached. */
const MAX_URL_LENGTH = 8192;
const KEY_PREFIX = 'undici:';

/** The tag every response from `origin` carries (e.g. `https://api.example.com`). */
export function undiciOriginTag(origin: string): string {
  return `undici:${origin}`;
}

/** The cache store of {@link undiciStore}. */
export class CachetteUndiciStore implements CacheHandler.CacheStore {
  /** The cache responses are kept in. */
  readonly cache: Cache;
  readonly #owned: boolean;
  readonly #maxEntrySize: number;
  readonly #maxVariants: number;
  readonly #tags: UndiciStoreOptions['tags'];
  /**
   * The writes of complete bodies still on their way to the store, by index key: a read of the
   * URL waits for them, so this process reads its own writes (undici's memory store stores a body
   * the moment it ends; a remote store takes a round trip).
   */
  readonly #landing = new Map<string, Promise<void>>();

  constructor(options: UndiciStoreOptions) {
    checkOptionsObject(options, 'undiciStore()');
    checkKnownOptions(options, KNOWN, 'undiciStore()');
    this.#maxEntrySize = positiveInteger(options.maxEntrySize ?? DEFAULT_MAX_ENTRY_SIZE, 'maxEntrySize');
    this.#maxVariants = positiveInteger(options.maxVariants ?? DEFAULT_MAX_VARIANTS, 'maxVariants');
    if (options.tags !== undefined && typeof options.tags !== 'function') throw new TypeError('undiciStore(): "tags" must be a function of the key and the value');
    this.#tags = options.tags;
    const { cache, owned } = adapterCache(options.store, 'undiciStore()');
    this.cache = cache;
    this.#owned = owned;
  }

  /** The stored response for `key` (its method and the request headers its Vary names), or undefined. */
  async get(key: CacheKey): Promise<GetResult | undefined> {
    checkKey(key);
    const index = indexKey(key);
    if (index === undefined) return undefined;
    const landing = this.#landing.get(index);
    if (landing) await landing;
    const variant = findVariant(await this.#index(index), key, Date.now());
    if (variant === undefined) return undefined;
    const stored = await this.cache.get<StoredVariant>(variantKey(index, variant.id));
    if (!isStoredVariant(stored)) return undefined;
    const { body, ...value } = stored;
    // An array of chunks, as undici's memory store answers: a revalidation (304) streams it back through `values()`.
    return { ...value, cacheControlDirectives: value.cacheControlDirectives ?? {}, body: [Buffer.from(body.buffer, body.byteOffset, body.byteLength)] };
  }

  /**
   * A Writable that collects the body; at its end the variant and the URL's index are stored
   * (one round trip). A body past `maxEntrySize` destroys the stream: nothing is stored.
   */
  createWriteStream(key: CacheKey, value: CacheValue): Writable | undefined {
    checkKey(key);
    checkValue(value);
    const index = indexKey(key);
    if (index === undefined) return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const limit = this.#maxEntrySize;
    return new Writable({
      write(chunk: Buffer | string, encoding, callback) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
        size += bytes.byteLength;
        if (size > limit) {
          chunks.length = 0;
          this.destroy();
        } else chunks.push(bytes);
        callback(null);
      },
      final: (callback) => {
        const write = this.#land(index, this.#write(index, key, value, Buffer.concat(chunks, size)));
        write.then(
          () => callback(null),
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      },
    });
  }

  /** Removes every stored variant of the key's URL (origin and path), whatever their method, as undici's stores do. */
  async delete(key: CacheKey): Promise<void> {
    if (key === null || typeof key !== 'object') throw new TypeError(`expected key to be object, got ${typeof key}`);
    const index = indexKey(key);
    if (index !== undefined) await this.cache.delete(index);
  }

  /**
   * Waits for the bodies still landing (a write stream undici ended lands after it), then closes
   * the cache built over a store; a cache you passed stays open. Closing first would fail those
   * writes, and undici answers a failed write stream with a `delete` whose rejection it leaves
   * unhandled.
   */
  async close(): Promise<void> {
    await Promise.all(this.#landing.values());
    if (this.#owned) await this.cache.close();
  }

  /** Registers `write` as landing for `index` until it settles (a later write of the URL waits for the earlier one first). */
  #land(index: string, write: Promise<void>): Promise<void> {
    const before = this.#landing.get(index);
    const landed: Promise<void> = (before ? before.then(() => write) : write).finally(() => {
      if (this.#landing.get(index) === landed) this.#landing.delete(index);
    });
    this.#landing.set(
      index,
      landed.catch(() => undefined),
    );
    return landed;
  }

  async #index(index: string): Promise<readonly IndexedVariant[]> {
    const stored = await this.cache.get<StoredIndex>(index);
    return isStoredIndex(stored) ? stored.variants : [];
  }

  async #write(index: string, key: CacheKey, value: CacheValue, body: Buffer): Promise<void> {
    const now = Date.now();
    if (!(value.deleteAt > now)) return;
    const vary = value.vary ?? undefined;
    const previous = (await this.#index(index)).filter((variant) => variant.deleteAt > now);
    const same = previous.find((variant) => variant.method === key.method && sameVary(variant.vary, vary));
    const id = same?.id ?? crypto.randomUUID();
    const variants = [{ id, method: key.method, ...(vary ? { vary } : {}), deleteAt: value.deleteAt }, ...previous.filter((variant) => variant !== same)].slice(0, this.#maxVariants);
    const tags = [undiciOriginTag(key.origin), ...(this.#tags?.(key, value) ?? [])];
    const stored: StoredVariant = { ...value, body };
    const lastDelete = Math.max(...variants.map((variant) => variant.deleteAt));
    const indexed: StoredIndex = { variants };
    await this.cache.setMany<StoredVariant | StoredIndex>([
      { key: variantKey(index, id), value: stored, ttl: value.deleteAt - now, tags },
      { key: index, value: indexed, ttl: lastDelete - now, tags },
    ]);
  }
}

/** The index key of a URL, or undefined when the URL is too long to be a key. */
function indexKey(key: Pick<CacheKey, 'origin' | 'path'>): string | undefined {
  if (key.origin.length + key.path.length > MAX_URL_LENGTH) return undefined;
  return `${KEY_PREFIX}${key.origin}${key.path}`;
}

function variantKey(index: string, id: string): string {
  return `${index}#${id}`;
}

/** The first live variant answering the method, whose Vary headers the request matches (a null: the request had none). */
function findVariant(variants: readonly IndexedVariant[], key: CacheKey, now: number): IndexedVariant | undefined {
  const headers = key.headers ?? {};
  return variants.find(
    (variant) =>
      variant.deleteAt > now &&
      variant.method === key.method &&
      (variant.vary === undefined || Object.entries(variant.vary).every(([name, expected]) => (expected === null ? headers[name] === undefined : sameHeader(expected, headers[name])))),
  );
}

function sameHeader(a: string | string[] | null | undefined, b: string | string[] | null | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i]);
  return a === b;
}

function sameVary(a: Vary | undefined, b: Vary | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => name in b && sameHeader(a[name], b[name]));
}

// Stored values are read back as they were written by this store, but a shared store can hold
// anything under these keys: a shape that is not ours is a miss.
function isStoredIndex(value: unknown): value is StoredIndex {
  return typeof value === 'object' && value !== null && Array.isArray((value as StoredIndex).variants);
}

function isStoredVariant(value: unknown): value is StoredVariant {
  const variant = value as StoredVariant | undefined;
  return (
    typeof variant === 'object' && variant !== null && variant.body instanceof Uint8Array && typeof variant.statusCode === 'number' && typeof variant.headers === 'object' && variant.headers !== null
  );
}

/** undici's checks of a key (its stores throw the same TypeErrors). */
function checkKey(key: CacheKey): void {
  if (key === null || typeof key !== 'object') throw new TypeError(`expected key to be object, got ${typeof key}`);
  for (const property of ['origin', 'method', 'path'] as const) {
    if (typeof key[property] !== 'string') throw new TypeError(`expected key.${property} to be string, got ${typeof key[property]}`);
  }
  if (key.headers !== undefined && (key.headers === null || typeof key.headers !== 'object')) throw new TypeError(`expected headers to be object, got ${typeof key.headers}`);
}

function checkValue(value: CacheValue): void {
  if (value === null || typeof value !== 'object') throw new TypeError(`expected value to be object, got ${typeof value}`);
  for (const property of ['statusCode', 'cachedAt', 'staleAt', 'deleteAt'] as const) {
    if (typeof value[property] !== 'number') throw new TypeError(`expected value.${property} to be number, got ${typeof value[property]}`);
  }
  if (typeof value.statusMessage !== 'string') throw new TypeError(`expected value.statusMessage to be string, got ${typeof value.statusMessage}`);
  if (value.headers === null || typeof value.headers !== 'object') throw new TypeError(`expected value.rawHeaders to be object, got ${typeof value.headers}`);
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`undiciStore(): "${name}" must be a positive integer, got ${String(value)}`);
  return value;
}

/**
 * undici's cache interceptor over cachette:
 *
 * ```ts
 * import { Agent, interceptors, fetch } from 'undici';
 * const dispatcher = new Agent().compose(interceptors.cache({ store: undiciStore({ store: valkeyStore(url) }) }));
 * await fetch('https://api.example.com/users', { dispatcher });
 * ```
 */
export function undiciStore(options: UndiciStoreOptions): CachetteUndiciStore {
  return new CachetteUndiciStore(options);
}
