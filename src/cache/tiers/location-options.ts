import { toMs, type Duration } from '../../util/duration.ts';
import { checkKnownOptions } from '../../util/known-options.ts';

/**
 * The part of a web-standard `Cache` (the Cache API: `caches.default` or `await caches.open(name)`
 * on Cloudflare Workers, `await caches.open(name)` on Deno) the location tier uses, typed
 * structurally so that neither platform's type package is needed.
 */
export interface WebCache {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
}

/** Options of the per-location tier (`locationCache`, docs/location-cache.md). */
export interface LocationCacheOptions {
  /**
   * Where the copies live: a `Cache`, or the name of one to open with `caches.open(name)`.
   * Default: `caches.default` where it exists (Workers), else `caches.open('cachette')` (Deno).
   */
  cache?: WebCache | string;
  /**
   * `verified`: a copy is served only after one store read confirms it is still the stored
   * version and every tag it records is still at its generation: never older than what the
   * store answers at that read. `bounded`: a copy confirmed by a read issued less than `maxAge`
   * ago is served with no store read at all (counted in `stats().locationUnconfirmed`), then
   * confirmed again as in `verified`: another location's write or invalidation is seen at most
   * `maxAge` after it reached the store. Not coherent, and named so.
   */
  mode: 'verified' | 'bounded';
  /** With `bounded` (and required there): how long a confirmed copy is served without asking the store. */
  maxAge?: Duration;
  /** Largest stored entry, in bytes, copied to the location; larger ones are read from the store every time. Default 1 MiB. */
  maxBytes?: number;
}

/** {@link LocationCacheOptions} checked, with defaults applied. */
export interface ResolvedLocationCache {
  /** The Cache, or the one named (opened at the first read). */
  readonly cache: () => Promise<WebCache>;
  readonly mode: 'verified' | 'bounded';
  /** With `bounded`: ms a confirmed copy is served unconfirmed; 0 with `verified`. */
  readonly maxAgeMs: number;
  readonly maxBytes: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
/** The name opened where there is no `caches.default`. */
const DEFAULT_CACHE_NAME = 'cachette';

/** The Cache API as Workers (with `default`) and Deno offer it. */
interface CacheStorageLike {
  open(name: string): Promise<WebCache>;
  default?: WebCache;
}

/** Validates `locationCache`: a clear error where the runtime has no Cache API and none was passed. */
export function resolveLocationCache(options: LocationCacheOptions, l1: unknown): ResolvedLocationCache {
  const where = 'createCache: locationCache';
  if (typeof options !== 'object' || options === null) throw new TypeError(`${where} must be an object ({ mode, maxAge, cache, maxBytes })`);
  checkKnownOptions(options, ['cache', 'mode', 'maxAge', 'maxBytes'] satisfies ReadonlyArray<keyof LocationCacheOptions>, where);
  if (l1 !== undefined) throw new TypeError(`${where} and l1 cannot be combined: choose the per-location tier (shared by the isolates of a location) or the in-process one`);
  const { mode } = options;
  if (mode !== 'verified' && mode !== 'bounded') throw new TypeError(`${where}.mode must be "verified" or "bounded", got ${JSON.stringify(mode)}`);
  if (mode === 'verified' && options.maxAge !== undefined) throw new TypeError(`${where}.maxAge applies to mode: "bounded" only (a verified copy is confirmed at every read)`);
  if (mode === 'bounded' && options.maxAge === undefined) throw new TypeError(`${where}: mode "bounded" needs maxAge, the longest a copy is served without asking the store`);
  const maxAgeMs = mode === 'bounded' ? toMs(options.maxAge!, 'locationCache.maxAge') : 0;
  if (mode === 'bounded' && !(maxAgeMs > 0 && Number.isFinite(maxAgeMs))) throw new RangeError(`${where}.maxAge must be a finite duration greater than 0, got ${maxAgeMs} ms`);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError(`${where}.maxBytes must be a positive integer, got ${maxBytes}`);
  return { cache: openOnce(options.cache, where), mode, maxAgeMs, maxBytes };
}

/** The Cache to use, opened at most once; checked now, so that a runtime without one fails at createCache. */
function openOnce(cache: WebCache | string | undefined, where: string): () => Promise<WebCache> {
  if (typeof cache === 'object' && cache !== null) {
    for (const method of ['match', 'put', 'delete'] as const) {
      if (typeof cache[method] !== 'function') throw new TypeError(`${where}.cache must be a Cache (from caches.open) or its name; it lacks ${method}()`);
    }
    return async () => cache;
  }
  if (cache !== undefined && (typeof cache !== 'string' || cache === '')) throw new TypeError(`${where}.cache must be a Cache (from caches.open) or a non-empty name`);
  const storage = (globalThis as { caches?: Partial<CacheStorageLike> }).caches;
  if (typeof storage?.open !== 'function') {
    throw new TypeError(
      `${where} needs the Cache API (globalThis.caches, as on Cloudflare Workers and Deno), which this runtime lacks; pass locationCache.cache, an object with match, put and delete`,
    );
  }
  // The Cache itself is kept, not the promise of it: on Workers a promise settled by one
  // request's I/O must not be awaited by another's. Two first reads may both open it: harmless.
  let opened: WebCache | undefined;
  return async () => {
    opened ??= cache === undefined && storage.default !== undefined ? storage.default : await storage.open!(cache ?? DEFAULT_CACHE_NAME);
    return opened;
  };
}
