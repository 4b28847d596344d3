import { createCache, type Cache } from '../cache/create-cache.ts';
import type { Store } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import type { FreshnessPolicy } from './freshness.ts';
import { primaryKeyFunction, type KeyOptions } from './key.ts';

/** Options of {@link createHttpCache} and `httpCache`. Pass exactly one of `store` or `cache`. */
export interface HttpCacheOptions extends KeyOptions {
  /** A byte store; the HTTP cache opens an engine on it under the namespace `http`. */
  store?: Store;
  /** An engine you configured yourself (serializer must round-trip objects with byte arrays: cbor, the default). */
  cache?: Cache;
  /** Engine namespace when `store` is given. Default "http". */
  namespace?: string;
  /**
   * Engine call folding when `store` is given (see CacheOptions.batch). Default true for
   * remote stores. The Workers binding turns it off: one isolate serves many requests, and a
   * call folded into another request's round trip would tie the two requests' I/O together.
   */
  batch?: boolean;
  /**
   * Freshness for cacheable responses that state none (no s-maxage, max-age or Expires).
   * Replaces the Last-Modified heuristic. Default: none (the heuristic applies).
   */
  ttl?: Duration;
  /** Heuristic freshness from Last-Modified (RFC 9111 §4.2.2), or `false` to disable it. */
  heuristic?: { fraction?: number; max?: Duration } | false;
  /** Responses with a body larger than this are served and not stored. Default 8 MiB. */
  maxBodyBytes?: number;
  /**
   * How long a response is kept after it turns stale (beyond its stale-while-revalidate and
   * stale-if-error windows), so it can be revalidated with a conditional request or served to
   * a client's `max-stale`. Default "10m".
   */
  retainStale?: Duration;
  /**
   * Store responses that carry `Set-Cookie` (the header is removed from the stored copy; the
   * client that caused the fetch still receives it). Default false: such responses are not stored.
   */
  storeSetCookie?: boolean;
  /** Tags (surrogate keys) added to every stored response, besides its Cache-Tag and Surrogate-Key headers. */
  tags?: readonly string[] | ((request: Request, response: Response) => readonly string[] | undefined);
  /** Requests for which the cache is skipped entirely (`fwd=bypass`). Range requests always are. */
  bypass?: (request: Request) => boolean;
  /** The cache's name in Cache-Status. Default "cachette". */
  name?: string;
  /** Add `key="…"` to Cache-Status (useful while debugging; it reveals the key). Default false. */
  cacheStatusKey?: boolean;
  /** Also send `X-Cache: HIT | MISS | STALE | BYPASS`. Default false. */
  xCache?: boolean;
  /** The clock, ms since the epoch. Default `Date.now`; tests inject a fake one. */
  now?: () => number;
  /** Receives failures nobody waits for: background revalidations, store writes, invalidations. */
  onError?: (error: unknown) => void;
}

/** Options after validation, with defaults applied. */
export interface ResolvedHttpOptions {
  cache: Cache;
  ownsCache: boolean;
  key: (request: Request) => string;
  policy: FreshnessPolicy;
  maxBodyBytes: number;
  retainStaleMs: number;
  storeSetCookie: boolean;
  tags: HttpCacheOptions['tags'];
  bypass: ((request: Request) => boolean) | undefined;
  name: string;
  cacheStatusKey: boolean;
  xCache: boolean;
  now: () => number;
  onError: (error: unknown) => void;
}

/** Validates the options, throwing a TypeError or RangeError naming the bad one. */
export function resolveHttpOptions(o: HttpCacheOptions): ResolvedHttpOptions {
  if (!o || typeof o !== 'object') throw new TypeError('httpCache needs an options object with a store or a cache');
  if ((o.store === undefined) === (o.cache === undefined)) throw new TypeError('httpCache: pass exactly one of "store" or "cache"');
  for (const name of ['bypass', 'now', 'onError'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'function') throw new TypeError(`httpCache: "${name}" must be a function`);
  }
  if (o.tags !== undefined && typeof o.tags !== 'function' && !Array.isArray(o.tags)) throw new TypeError('httpCache: "tags" must be an array of strings or a function');
  const maxBodyBytes = o.maxBodyBytes ?? 8 * 1024 * 1024;
  if (!(maxBodyBytes >= 0)) throw new RangeError(`httpCache: maxBodyBytes must be a non-negative number, got ${maxBodyBytes}`);
  const fraction = o.heuristic === false ? 0 : o.heuristic?.fraction ?? 0.1;
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`httpCache: heuristic.fraction must be within [0, 1], got ${fraction}`);
  const name = o.name ?? 'cachette';
  if (!/^[A-Za-z*][A-Za-z0-9_\-.:%*/]*$/.test(name)) throw new TypeError(`httpCache: "name" must be a structured-field token (e.g. "cachette"), got ${JSON.stringify(name)}`);
  const cache = o.cache ?? createCache({
    store: o.store!,
    namespace: o.namespace ?? 'http',
    ...(o.batch === undefined ? {} : { batch: o.batch }),
    // Bodies are usually compressed already (Content-Encoding), and inflating on every hit
    // would cost more than it saves; pass your own `cache` to choose otherwise.
    compression: false,
    // The store was passed in: it belongs to the caller, who closes it.
    closeStore: false,
  });
  return {
    cache,
    ownsCache: o.cache === undefined,
    key: primaryKeyFunction(o),
    policy: {
      defaultTtlMs: o.ttl === undefined ? undefined : toMs(o.ttl, 'httpCache: ttl'),
      heuristicFraction: fraction,
      heuristicMaxMs: o.heuristic === false ? 0 : toMs(o.heuristic?.max ?? '1d', 'httpCache: heuristic.max'),
    },
    maxBodyBytes,
    retainStaleMs: toMs(o.retainStale ?? '10m', 'httpCache: retainStale'),
    storeSetCookie: o.storeSetCookie === true,
    tags: o.tags,
    bypass: o.bypass,
    name,
    cacheStatusKey: o.cacheStatusKey === true,
    xCache: o.xCache === true,
    now: o.now ?? Date.now,
    onError: o.onError ?? (() => {}),
  };
}
