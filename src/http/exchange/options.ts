import { createCache, type Cache } from '../../cache/create-cache.ts';
import { resolveLocationCache, type LocationCacheOptions } from '../../cache/tiers/location-options.ts';
import type { Store } from '../../store/types.ts';
import { toMs, type Duration } from '../../util/duration.ts';
import { checkKnownOptions, checkOptionsObject, storeOptionMistake } from '../../util/known-options.ts';
import { cdnLink } from '../../cdn/link.ts';
import { tagField, type CdnTagHeader } from '../../cdn/tag-rules.ts';
import type { FreshnessPolicy } from '../rules/freshness.ts';
import { isFieldName } from '../rules/headers.ts';
import { primaryKeyFunction, type KeyOptions } from '../rules/key.ts';
import { DEFAULT_TARGETED_FIELDS } from '../rules/response-directives.ts';
import type { SetCookiePolicy } from '../rules/storability.ts';
import type { TagsOption } from '../rules/tags.ts';

/** Options of `withCache` and `createHttpCache` from cachette/http. Pass exactly one of `store` or `cache`. */
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
   * The per-location tier of the engine opened when `store` is given (CacheOptions.locationCache,
   * docs/location-cache.md): stored responses copied into the location's Cache API. Default: none.
   */
  locationCache?: LocationCacheOptions;
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
   * How far apart (bytes) the clients sharing one response may read once its body is too large
   * to store: the origin is read only as fast as the clients ask within this window, and a
   * client a whole window behind the others is moved onto its own request for the rest (when
   * the response has a strong ETag and accepts ranges; otherwise the others wait for it).
   * Default 1 MiB.
   */
  shareWindowBytes?: number;
  /**
   * How long the clients sharing one response may be held back by one that stopped reading
   * (a whole `shareWindowBytes` behind, when it cannot be moved onto its own request: no strong
   * ETag, or a middleware without `app`): past it, that client's response is cut off and the
   * others go on. Default "10s"; `Infinity` waits for ever.
   */
  slowClientTimeout?: Duration;
  /**
   * Most variants kept per URL (one per combination of the request fields `Vary` names); a new
   * one past the cap replaces the oldest. Default 100.
   */
  maxVariants?: number;
  /**
   * Hit-for-miss: how long a URL whose answer could not be shared with the requests waiting
   * for it (not storable, such as `no-store` or `private`, or stale on arrival, such as
   * `no-cache`) sends its next misses to the origin each on its own, at once, instead of
   * collapsing them behind one origin call (Varnish keeps the same for 120 s). Judged per
   * variant when the answer had a `Vary`; a storable, fresh answer for the URL ends it at once.
   * A 5xx never starts it: requests waiting for a failed origin call get a stale copy or a 504,
   * so that a failing origin is not asked by each of them. Default "120s"; 0 always collapses.
   */
  hitForMiss?: Duration;
  /**
   * How long the origin may take to answer with a status and headers before the request is
   * answered 504 (or from a stale copy that stale-if-error allows); every request that joined
   * it gets the same. Default "60s"; `Infinity` waits for ever.
   */
  originTimeout?: Duration;
  /**
   * How long the origin may pause in the middle of a body before the transfer is failed (the
   * clients' streams error, nothing is stored, the origin's body is cancelled). It counts only
   * while a read waits for the origin, never while a client is slow to read. It applies to
   * bodies passed through unstored too (a long-lived event stream with longer pauses needs a
   * larger value). Default "60s"; `Infinity` waits for ever.
   */
  originIdleTimeout?: Duration;
  /**
   * Targeted cache-control fields this cache obeys (RFC 9213), in order of precedence, e.g.
   * `['Acme-CDN-Cache-Control', 'CDN-Cache-Control']`. The first one present and valid replaces
   * Cache-Control and Expires for this cache's decisions; all of them are passed on
   * downstream unchanged. `false` ignores them. Default `['CDN-Cache-Control']`.
   */
  targetedFields?: readonly string[] | false;
  /**
   * Store 206 (Partial Content) responses that have a strong ETag. Later ranges within what
   * is stored are answered from it, parts of one representation are combined (RFC 9111 §3.4),
   * and a full request with part of the body stored asks the origin only for the rest.
   * Default false: 206 responses pass through (single ranges are still answered from a
   * stored complete 200).
   */
  storePartial?: boolean;
  /**
   * How long a response is kept after it turns stale (beyond its stale-while-revalidate and
   * stale-if-error windows), so it can be revalidated with a conditional request or served to
   * a client's `max-stale`. Default "10m".
   */
  retainStale?: Duration;
  /**
   * Responses that carry `Set-Cookie`: `'bypass'` (the default) does not store them; `'strip'`
   * stores them without the header (the client that caused the fetch still receives it);
   * `'store'` keeps the header in the stored copy, so every client served from it gets the
   * same cookie — only for an origin that sets one cookie for everyone (RFC 9111 §3.1 permits
   * it; a per-user cookie stored this way is given to every user).
   */
  setCookie?: SetCookiePolicy;
  /**
   * Tags (surrogate keys) added to every stored response, besides its Cache-Tag and
   * Surrogate-Key headers, for `purge({ tag })`. A response with more than 64 tags in all is
   * served and not stored (`detail="too-many-tags"`).
   */
  tags?: TagsOption;
  /** Requests for which the cache is skipped entirely (`fwd=bypass`). Multi-range requests always are. */
  bypass?: (request: Request) => boolean;
  /** The cache's name in Cache-Status. Default "cachette". */
  name?: string;
  /** Add `key="…"` to Cache-Status (useful while debugging; it reveals the key). Default false. */
  cacheStatusKey?: boolean;
  /** Also send `X-Cache: HIT | MISS | STALE | BYPASS`. Default false. */
  xCache?: boolean;
  /**
   * Send the tag field a CDN in front reads, from the tags each stored response carries:
   * `'cloudflare'` (`Cache-Tag`), `'fastly'` (`Surrogate-Key`), `'vercel'` (`Vercel-Cache-Tag`),
   * within that CDN's documented bounds; tags past them are left out and counted in the cache's
   * `stats().cdnTagsDropped` (docs/cdn.md). Default: none.
   */
  cdnTagHeader?: CdnTagHeader;
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
  shareWindowBytes: number;
  slowClientTimeoutMs: number;
  maxVariants: number;
  hitForMissMs: number;
  originTimeoutMs: number;
  originIdleTimeoutMs: number;
  /** Lowercase names; empty when targeted fields are ignored. */
  targetedFields: readonly string[];
  storePartial: boolean;
  retainStaleMs: number;
  setCookie: SetCookiePolicy;
  tags: TagsOption | undefined;
  bypass: ((request: Request) => boolean) | undefined;
  name: string;
  cacheStatusKey: boolean;
  xCache: boolean;
  /** The CDN tag field of a response's tags (`cdnTagHeader`), or undefined when off. */
  cdnTagField: ((tags: readonly string[]) => [name: string, value: string] | undefined) | undefined;
  now: () => number;
  onError: (error: unknown) => void;
}

/** Every option of {@link HttpCacheOptions}, for the unknown-option check. */
export const HTTP_CACHE_OPTIONS = [
  'store',
  'cache',
  'namespace',
  'batch',
  'locationCache',
  'ttl',
  'heuristic',
  'maxBodyBytes',
  'shareWindowBytes',
  'maxVariants',
  'slowClientTimeout',
  'hitForMiss',
  'originTimeout',
  'originIdleTimeout',
  'targetedFields',
  'storePartial',
  'retainStale',
  'setCookie',
  'tags',
  'bypass',
  'name',
  'cacheStatusKey',
  'xCache',
  'cdnTagHeader',
  'now',
  'onError',
  'sortQuery',
  'ignoreQuery',
  'key',
] as const satisfies ReadonlyArray<keyof HttpCacheOptions>;
// Every option must be in the list above: this fails to compile when one is missing.
const everyOptionListed: Exclude<keyof HttpCacheOptions, (typeof HTTP_CACHE_OPTIONS)[number]> extends never ? true : never = true;
void everyOptionListed;

/**
 * Who was handed the options: every message names the call as the user wrote it, never an
 * internal function, and an unknown name is matched against the caller's own options too.
 */
export interface HttpOptionsCaller {
  /** The call, e.g. "cache() from cachette/hono" or "serve() from cachette/bun". */
  name: string;
  /** Options the caller takes itself and removes before handing over the rest (Hono's `app`, a server's `env`). */
  own?: readonly string[];
  /**
   * The caller supplies the store itself, later (a server runtime's or the Workers binding's,
   * picked from the environment): the options are checked without one, and `cache` is not
   * among them.
   */
  storeLater?: boolean;
}

/** Validates the options and opens the engine, throwing a TypeError or RangeError naming the bad one and the call. */
export function resolveHttpOptions(options: HttpCacheOptions, caller: HttpOptionsCaller): ResolvedHttpOptions {
  let counted: ((count: number) => void) | undefined;
  const settings = resolveSettings(options, caller, (count) => counted?.(count));
  const cache =
    options.cache ??
    createCache({
      store: options.store!,
      namespace: options.namespace ?? 'http',
      ...(options.batch === undefined ? {} : { batch: options.batch }),
      ...(options.locationCache === undefined ? {} : { locationCache: options.locationCache }),
      // Bodies are usually compressed already (Content-Encoding), and inflating on every hit
      // would cost more than it saves; pass your own `cache` to choose otherwise.
      compression: false,
      // The store was passed in: it belongs to the caller, who closes it.
      closeStore: false,
    });
  // The tags cdnTagHeader leaves out are counted in this cache's stats().
  counted = (count) => cdnLink(cache)?.tagsDropped(count);
  return { ...settings, cache, ownsCache: options.cache === undefined };
}

/**
 * Validates the options of a caller that opens the cache later (`storeLater`), so that a typo
 * fails where the options are written, not at the first request.
 */
export function checkHttpCacheOptions(options: Omit<HttpCacheOptions, 'store' | 'cache'>, caller: HttpOptionsCaller): void {
  resolveSettings(options, caller);
}

function resolveSettings(options: HttpCacheOptions, caller: HttpOptionsCaller, tagsDropped: (count: number) => void = () => {}): Omit<ResolvedHttpOptions, 'cache' | 'ownsCache'> {
  const where = caller.name;
  checkOptionsObject(options, where);
  if ('storeSetCookie' in options) throw new TypeError(`${where}: "storeSetCookie" was replaced by setCookie: 'bypass' | 'strip' | 'store' (storeSetCookie: true stripped the header: use 'strip')`);
  const known: readonly string[] = caller.storeLater ? HTTP_CACHE_OPTIONS.filter((name) => name !== 'store' && name !== 'cache') : HTTP_CACHE_OPTIONS;
  checkKnownOptions(options, caller.own ? [...known, ...caller.own] : known, where);
  if (!caller.storeLater) checkStoreOrCache(options, where);
  // Checked now (a Worker's withCache runs at module scope), though the engine opens later.
  if (options.locationCache !== undefined) resolveLocationCache(options.locationCache, undefined);
  for (const name of ['bypass', 'now', 'onError'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw new TypeError(`${where}: "${name}" must be a function`);
  }
  if (options.tags !== undefined && typeof options.tags !== 'function' && !Array.isArray(options.tags)) throw new TypeError(`${where}: "tags" must be an array of strings or a function`);
  const setCookie = options.setCookie ?? 'bypass';
  if (setCookie !== 'bypass' && setCookie !== 'strip' && setCookie !== 'store') throw new TypeError(`${where}: "setCookie" must be 'bypass', 'strip' or 'store', got ${JSON.stringify(setCookie)}`);
  const maxBodyBytes = byteCount(options.maxBodyBytes, 8 * 1024 * 1024, 'maxBodyBytes', where);
  const shareWindowBytes = byteCount(options.shareWindowBytes, 1024 * 1024, 'shareWindowBytes', where);
  if (shareWindowBytes === 0) throw new RangeError(`${where}: shareWindowBytes must be at least 1`);
  const maxVariants = options.maxVariants ?? 100;
  if (!Number.isSafeInteger(maxVariants) || maxVariants < 1) throw new RangeError(`${where}: maxVariants must be a positive integer, got ${maxVariants}`);
  const targeted = options.targetedFields ?? DEFAULT_TARGETED_FIELDS;
  if (targeted !== false && (!Array.isArray(targeted) || !targeted.every((field) => typeof field === 'string' && isFieldName(field)))) {
    throw new TypeError(`${where}: "targetedFields" must be an array of field names (e.g. ["CDN-Cache-Control"]) or false`);
  }
  if (options.heuristic !== undefined && options.heuristic !== false) {
    checkOptionsObject(options.heuristic, where, '"heuristic"');
    checkKnownOptions(options.heuristic, ['fraction', 'max'], `${where}: heuristic`);
  }
  const fraction = options.heuristic === false ? 0 : (options.heuristic?.fraction ?? 0.1);
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`${where}: heuristic.fraction must be within [0, 1], got ${fraction}`);
  const name = options.name ?? 'cachette';
  if (!/^[A-Za-z*][A-Za-z0-9_\-.:%*/]*$/.test(name)) throw new TypeError(`${where}: "name" must be a structured-field token (e.g. "cachette"), got ${JSON.stringify(name)}`);
  return {
    key: primaryKeyFunction(options, where),
    policy: {
      defaultTtlMs: options.ttl === undefined ? undefined : toMs(options.ttl, `${where}: ttl`),
      heuristicFraction: fraction,
      heuristicMaxMs: options.heuristic === false ? 0 : toMs(options.heuristic?.max ?? '1d', `${where}: heuristic.max`),
    },
    maxBodyBytes,
    shareWindowBytes,
    slowClientTimeoutMs: positiveMs(options.slowClientTimeout ?? '10s', `${where}: slowClientTimeout`),
    maxVariants,
    hitForMissMs: toMs(options.hitForMiss ?? '120s', `${where}: hitForMiss`),
    originTimeoutMs: positiveMs(options.originTimeout ?? '60s', `${where}: originTimeout`),
    originIdleTimeoutMs: positiveMs(options.originIdleTimeout ?? '60s', `${where}: originIdleTimeout`),
    targetedFields: targeted === false ? [] : targeted.map((field) => field.toLowerCase()),
    storePartial: options.storePartial === true,
    retainStaleMs: toMs(options.retainStale ?? '10m', `${where}: retainStale`),
    setCookie,
    tags: options.tags,
    bypass: options.bypass,
    name,
    cacheStatusKey: options.cacheStatusKey === true,
    xCache: options.xCache === true,
    cdnTagField: options.cdnTagHeader === undefined ? undefined : tagField(options.cdnTagHeader, tagsDropped, where),
    now: options.now ?? Date.now,
    onError: options.onError ?? (() => {}),
  };
}

/** Exactly one of `store` and `cache`, each of the right kind. */
function checkStoreOrCache(options: HttpCacheOptions, where: string): void {
  if (options.store === undefined && options.cache === undefined) throw new TypeError(`${where}: pass a "store" (e.g. memoryStore()) or a "cache" (from createCache)`);
  if (options.store !== undefined && options.cache !== undefined) throw new TypeError(`${where}: pass a "store" or a "cache", not both (the cache already has its store)`);
  if (options.store !== undefined) {
    const mistake = storeOptionMistake(options.store, where);
    if (mistake) throw mistake;
  }
  if (options.cache !== undefined && typeof (options.cache as Partial<Cache> | null)?.getOrSet !== 'function') throw new TypeError(`${where}: "cache" must be a cache from createCache()`);
  if (options.cache !== undefined && options.locationCache !== undefined)
    throw new TypeError(`${where}: "locationCache" applies to the engine opened on "store"; pass it to the createCache of your "cache" instead`);
}

function byteCount(value: number | undefined, fallback: number, name: string, where: string): number {
  const bytes = value ?? fallback;
  if (typeof bytes !== 'number' || !(bytes >= 0)) throw new RangeError(`${where}: ${name} must be a non-negative number of bytes, got ${String(bytes)}`);
  return bytes;
}

function positiveMs(value: Duration, name: string): number {
  const ms = toMs(value, name);
  if (ms === 0) throw new RangeError(`${name} must be greater than 0 (Infinity waits for ever)`);
  return ms;
}
