/**
 * The HTTP response cache: an RFC 9111 shared cache in front of any fetch-style origin.
 * Every binding (Hono, Express, Workers, Bun, Deno, node:http) is a translation onto
 * {@link HttpCache.handle}; the policy exists here once.
 */
import type { Cache } from '../cache/create-cache.ts';
import { formatCacheStatus, xCacheValue, type CacheOutcome, type ForwardReason } from './cache-status.ts';
import { parseDirectives, requestDirectives, type Directives, type RequestDirectives } from './cache-control.ts';
import { notModified, selectsForUpdate, validatorsOf } from './conditional.ts';
import { EntryStore, type Lookup } from './entry-store.ts';
import { currentAge, freshness, hasExplicitFreshness, HEURISTICALLY_CACHEABLE } from './freshness.ts';
import { connectionNames, endToEndHeaders, isHopByHop, type HeaderPair } from './headers.ts';
import { formatHttpDate } from './http-date.ts';
import { parseVary, sameValues, varyValues } from './key.ts';
import { resolveHttpOptions, type HttpCacheOptions, type ResolvedHttpOptions } from './options.ts';
import { SharedBody } from './shared-body.ts';
import type { ResponseMeta, StoredResponse, VaryMarker } from './stored-response.ts';
import { ListTagIndex, responseTags, type TagIndex } from './tag-index.ts';

/** Calls the origin for one request. */
export type OriginFetch = (request: Request) => Promise<Response>;

/** The part of a platform's execution context the cache uses (Workers' `ctx`, Hono's `executionCtx`). */
export interface WaitUntilContext {
  /** Keeps the runtime alive until `promise` settles (store writes, background revalidation). */
  waitUntil?(promise: Promise<unknown>): void;
}

/** Per-request options of {@link HttpCache.handle}. */
export interface HandleOptions extends WaitUntilContext {
  /**
   * Calls the origin for a background revalidation (stale-while-revalidate), after the client
   * was answered. Defaults to the `origin` given to `handle`. `null` says the origin cannot be
   * called once the response is gone (a middleware's `next`): stale-while-revalidate then
   * revalidates in the foreground instead.
   *
   * It also fetches the full response again when the origin answers the cache's conditional
   * request with a 304 that matches no stored response (RFC 9111 §4.3.4). With `null`, such a
   * request is answered 502, unless the 304 satisfies the client's own validators.
   */
  revalidate?: OriginFetch | null;
}

/** What {@link HttpCache.purge} removes. */
export type PurgeTarget = { url: string } | { tag: string };

/** The HTTP cache policy, independent of any framework. */
export interface HttpCache {
  /**
   * Answers `request` from the cache or through `origin`, storing what may be stored. `origin`
   * is called at most once per call; the one retry the cache may need (a 304 that matches no
   * stored response) goes through `options.revalidate`, which defaults to `origin`. Never
   * rejects because of the store; rejects only when the origin does and no stale response may
   * stand in for it.
   */
  handle(request: Request, origin: OriginFetch, options?: HandleOptions): Promise<Response>;
  /** Deletes the responses stored for a URL (every variant) or carrying a tag; resolves with how many entries existed. */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background work (store writes, revalidations, invalidations) has settled. */
  idle(): Promise<void>;
  /** Waits for background work, then closes the engine it opened (never a store or cache you passed in). */
  close(): Promise<void>;
  /** The engine entries live on (its `events` report store errors and corrupt entries). */
  readonly cache: Cache;
}

/** A fetch-style handler: the shape `httpCache` wraps and returns. */
export type FetchHandler<C = WaitUntilContext> = (request: Request, ctx?: C) => Promise<Response>;

/** The handler returned by {@link httpCache}: same shape as the one wrapped, plus cache controls. */
export interface CachedHandler<C extends WaitUntilContext = WaitUntilContext> extends FetchHandler<C> {
  /** See {@link HttpCache.purge}. */
  purge(target: PurgeTarget): Promise<number>;
  /** See {@link HttpCache.idle}. */
  idle(): Promise<void>;
  /** See {@link HttpCache.close}. */
  close(): Promise<void>;
  /** The policy object behind the handler. */
  readonly httpCache: HttpCache;
}

/**
 * Wraps a fetch-style handler in a shared HTTP cache:
 *
 * ```ts
 * const cached = httpCache((req) => fetch(req), { store: memoryStore() });
 * const res = await cached(new Request('https://example.com/'));
 * await cached.purge({ tag: 'products' });
 * ```
 *
 * The context's `waitUntil`, when present, keeps store writes and background revalidations
 * alive on platforms that stop after the response (Workers).
 */
export function httpCache<C extends WaitUntilContext>(handler: FetchHandler<C>, options: HttpCacheOptions): CachedHandler<C> {
  if (typeof handler !== 'function') throw new TypeError('httpCache: the first argument must be a handler (request, ctx?) => Promise<Response>');
  const policy = createHttpCache(options);
  const cached = ((request: Request, ctx?: C) =>
    policy.handle(request, (r) => handler(r, ctx), ctx === undefined ? undefined : { waitUntil: ctx.waitUntil?.bind(ctx) })) as CachedHandler<C>;
  return Object.assign(cached, {
    purge: (target: PurgeTarget) => policy.purge(target),
    idle: () => policy.idle(),
    close: () => policy.close(),
    httpCache: policy,
  });
}

/** Creates the policy object that bindings call per request. See {@link HttpCacheOptions}. */
export function createHttpCache(options: HttpCacheOptions): HttpCache {
  return new SharedHttpCache(resolveHttpOptions(options));
}

/** A response on its way to clients: the meta to store and one body many clients can read. */
interface Shared {
  meta: ResponseMeta;
  body: SharedBody;
  fwdStatus: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
/** Fields a 304 never updates in the stored response (RFC 9111 §3.2, §4.3.4). */
const NOT_FRESHENED = new Set(['content-length', 'set-cookie', 'age']);
const NO_DIRECTIVES = requestDirectives(new Headers());

class SharedHttpCache implements HttpCache {
  readonly cache: Cache;
  readonly #o: ResolvedHttpOptions;
  readonly #entries: EntryStore;
  readonly #tags: TagIndex;
  /** Forwards in flight per primary key, for requests that can share them. */
  readonly #inflight = new Map<string, Promise<Shared | undefined>>();
  /** Engine keys with a background revalidation running. */
  readonly #refreshing = new Set<string>();
  readonly #background = new Set<Promise<unknown>>();

  constructor(o: ResolvedHttpOptions) {
    this.#o = o;
    this.cache = o.cache;
    this.#tags = new ListTagIndex(o.cache);
    this.#entries = new EntryStore(o.cache, this.#tags, o.retainStaleMs);
  }

  async handle(request: Request, origin: OriginFetch, options: HandleOptions = {}): Promise<Response> {
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD') return this.#otherMethod(request, origin, options);
    if (request.headers.has('range') || this.#o.bypass?.(request)) {
      const res = await origin(request);
      return this.#decorate(res, undefined, { fwd: 'bypass', fwdStatus: res.status });
    }
    const rd = requestDirectives(request.headers);
    const key = this.#o.key(request);
    if (!rd.noCache) {
      const pending = this.#inflight.get(key);
      if (pending) {
        const joined = await this.#join(pending, request, key);
        if (joined) return joined;
      }
    }
    let found: Lookup;
    try {
      found = await this.#entries.lookup(key, request.headers);
    } catch (error) {
      // Only a strict engine throws; a store failure is still a miss, never a 500.
      this.#o.onError(error);
      found = { kind: 'uri-miss' };
    }
    if (found.kind === 'found') return this.#fromEntry(found, request, origin, options, rd, key);
    if (rd.onlyIfCached) return this.#synthetic(504, key, { detail: 'only-if-cached' });
    return this.#forward(request, origin, options, rd, key, found, found.kind);
  }

  async purge(target: PurgeTarget): Promise<number> {
    if (target && typeof (target as { tag?: unknown }).tag === 'string') return this.#tags.purge((target as { tag: string }).tag);
    const url = (target as { url?: unknown } | undefined)?.url;
    if (typeof url !== 'string' || !URL.canParse(url)) throw new TypeError(`httpCache.purge: pass { url: "<absolute URL>" } or { tag: "<tag>" }, got ${JSON.stringify(target)}`);
    return this.#entries.remove([this.#o.key(new Request(url))]);
  }

  async idle(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  async close(): Promise<void> {
    await this.idle();
    if (this.#o.ownsCache) await this.cache.close();
  }

  /** A stored response was found: serve it, serve it stale, or revalidate it. */
  #fromEntry(found: Extract<Lookup, { kind: 'found' }>, request: Request, origin: OriginFetch, options: HandleOptions, rd: RequestDirectives, key: string): Promise<Response> | Response {
    const e = found.entry;
    const now = this.#o.now();
    const age = currentAge(e, now);
    const remaining = e.lifetime - age;
    const ageAccepted = rd.maxAge === undefined || age <= rd.maxAge;
    if (remaining > 0 && !rd.noCache && ageAccepted && (rd.minFresh === undefined || remaining >= rd.minFresh)) {
      return this.#reply(e, request, { hit: true, ttl: remaining }, age, key, () => e.body);
    }
    if (remaining <= 0 && !rd.noCache && !e.mustRevalidate) {
      const staleness = -remaining;
      // A request max-age still bounds the age of what max-stale accepts (RFC 9111 §5.2.1.1).
      if (rd.maxStale !== undefined && e.clientMayAcceptStale && staleness <= rd.maxStale && ageAccepted) {
        return this.#reply(e, request, { hit: true, ttl: remaining, stale: true }, age, key, () => e.body);
      }
      const revalidate = options.revalidate === undefined ? origin : options.revalidate;
      if (staleness <= e.swr && ageAccepted && revalidate !== null) {
        this.#revalidateInBackground(found, request, revalidate, options, key);
        return this.#reply(e, request, { hit: true, ttl: remaining, stale: true }, age, key, () => e.body);
      }
    }
    if (rd.onlyIfCached) return this.#synthetic(504, key, { detail: 'only-if-cached' });
    return this.#forward(request, origin, options, rd, key, found, remaining > 0 || rd.noCache ? 'request' : 'stale');
  }

  /**
   * Sends the request to the origin: conditionally when a stored response has validators, and
   * as the one shared forward for its URL when its response may be stored.
   */
  async #forward(request: Request, origin: OriginFetch, options: HandleOptions, rd: RequestDirectives, key: string, found: Lookup, fwd: ForwardReason, lead = true): Promise<Response> {
    if (lead && !rd.noCache) {
      // Another request may have started the forward while this one was reading the store.
      const started = this.#inflight.get(key);
      if (started) {
        const joined = await this.#join(started, request, key);
        if (joined) return joined;
      }
    }
    const stale = found.kind === 'found' ? found.entry : undefined;
    const marker = found.kind === 'uri-miss' ? undefined : found.marker;
    const isGet = request.method === 'GET';
    const mayStore = isGet && !rd.noStore;
    let share: ((shared: Shared | undefined) => void) | undefined;
    let pending: Promise<Shared | undefined> | undefined;
    if (lead && mayStore && !this.#inflight.has(key)) {
      pending = new Promise((resolve) => (share = resolve));
      this.#inflight.set(key, pending);
    }
    const release = () => {
      if (pending !== undefined && this.#inflight.get(key) === pending) this.#inflight.delete(key);
    };
    const done = (shared: Shared | undefined, until?: Promise<unknown>) => {
      share?.(shared);
      if (until) void until.finally(release);
      else release();
    };

    const validators = stale !== undefined && (stale.etag !== null || stale.lastModified !== null);
    const forwarded = this.#originRequest(request, mayStore, validators ? stale : undefined);
    const requestTime = this.#o.now();
    let res: Response;
    try {
      res = await origin(forwarded);
    } catch (error) {
      done(undefined);
      if (stale && this.#mayServeOnError(stale, rd)) return this.#serveStale(stale, request, key, { fwd }, 'stale-if-error');
      throw error;
    }
    const responseTime = this.#o.now();

    if (res.status >= 500 && stale && this.#mayServeOnError(stale, rd)) {
      done(undefined);
      void res.body?.cancel().catch(() => {});
      return this.#serveStale(stale, request, key, { fwd, fwdStatus: res.status }, 'stale-if-error');
    }
    if (res.status === 304 && stale && validators) {
      void res.body?.cancel().catch(() => {});
      if (!selectsForUpdate(res.headers, stale)) {
        // RFC 9111 §4.3.4: the 304 speaks of a response the cache does not hold, so it updates
        // nothing, and the stored one is now known to be outdated. It is removed before the
        // forward is released, so that neither a waiting request nor the retry's write can
        // meet it again.
        await this.#track(this.#entries.remove([key]), options);
        done(undefined);
        const outcome: CacheOutcome = { fwd, fwdStatus: 304, detail: 'validator-mismatch' };
        // A client whose own validators the 304 satisfies may have it as it is.
        if (notModified(request.headers, validatorsOf(res.headers))) return this.#decorate(res, key, outcome);
        const retry = options.revalidate === undefined ? origin : options.revalidate;
        if (retry === null) return this.#synthetic(502, key, outcome);
        // Nothing stored any more: the retry is unconditional, so it cannot end here again.
        return this.#forward(request, retry, options, rd, key, { kind: 'uri-miss' }, fwd, lead);
      }
      const fresh = this.#freshen(stale, res.headers, requestTime, responseTime);
      const write = fresh === undefined ? this.#entries.remove([key]) : this.#entries.write(key, fresh, marker);
      const tracked = this.#track(write, options);
      const served = fresh ?? stale;
      done(fresh && { meta: fresh, body: SharedBody.of(fresh.body), fwdStatus: 304 }, tracked);
      const age = currentAge(served, responseTime);
      return this.#reply(served, request, { fwd, fwdStatus: 304, ttl: served.lifetime - age }, age, key, () => served.body);
    }

    const cc = parseDirectives(res.headers.get('cache-control'));
    const verdict = this.#storable(request, res, cc, rd);
    if (typeof verdict === 'string') {
      done(undefined);
      return this.#decorate(res, key, { fwd, fwdStatus: res.status, detail: verdict });
    }
    const meta = this.#meta(request, res, cc, requestTime, responseTime);
    if (meta.lifetime - meta.initialAge <= 0 && meta.etag === null && meta.lastModified === null && meta.swr === 0 && meta.sie === 0) {
      done(undefined);
      return this.#decorate(res, key, { fwd, fwdStatus: res.status, detail: 'stale-on-arrival' });
    }
    const body = new SharedBody(res.body, this.#o.maxBodyBytes);
    const shared: Shared = { meta, body, fwdStatus: res.status };
    const stored = this.#track(body.complete.then((bytes) => bytes && this.#entries.write(key, { ...meta, body: bytes }, marker)), options);
    done(shared, stored);
    const outcome: CacheOutcome = { fwd, fwdStatus: res.status, ttl: meta.lifetime - meta.initialAge, stored: true };
    // The client that caused the forward gets the origin's own headers (its Set-Cookie included);
    // clients served from the stored copy get the stored headers.
    if (notModified(request.headers, meta)) return this.#notModifiedReply(meta, outcome, meta.initialAge, key);
    const headers = endToEndHeaders(res.headers);
    this.#annotate(headers, outcome, meta.initialAge, key);
    return new Response(request.method === 'HEAD' || NULL_BODY_STATUS.has(res.status) ? null : body.stream(), { status: res.status, statusText: res.statusText, headers });
  }

  /** Serves a request from another request's forward, when the response may be shared with it. */
  async #join(pending: Promise<Shared | undefined>, request: Request, key: string): Promise<Response | undefined> {
    const shared = await pending;
    if (!shared || !shared.body.joinable) return undefined;
    const { meta } = shared;
    if (meta.vary.length > 0 && !sameValues(varyValues(meta.vary, request.headers), meta.varyValues)) return undefined;
    const age = currentAge(meta, this.#o.now());
    return this.#reply(meta, request, { fwd: 'miss', fwdStatus: shared.fwdStatus, ttl: meta.lifetime - age, collapsed: true }, age, key, () => shared.body.stream());
  }

  /** Starts one revalidation of a stale entry after its stale copy was served. */
  #revalidateInBackground(found: Extract<Lookup, { kind: 'found' }>, request: Request, origin: OriginFetch, options: HandleOptions, key: string): void {
    if (this.#refreshing.has(found.storeKey)) return;
    this.#refreshing.add(found.storeKey);
    const headers = new Headers(request.headers);
    headers.delete('cache-control');
    headers.delete('pragma');
    // Not a shared forward: other clients keep getting the stale copy instead of waiting for it.
    const run = this.#forward(new Request(request.url, { headers }), origin, options, NO_DIRECTIVES, key, found, 'stale', false)
      // Reading nothing is enough: the shared body keeps reading until the copy is stored.
      .then((res) => res.body?.cancel())
      .finally(() => this.#refreshing.delete(found.storeKey));
    this.#track(run, options);
  }

  /** POST, PUT, DELETE, …: forwarded; a success invalidates the URL and its Location/Content-Location (RFC 9111 §4.4). */
  async #otherMethod(request: Request, origin: OriginFetch, options: HandleOptions): Promise<Response> {
    const res = await origin(request);
    if (!SAFE_METHODS.has(request.method) && res.status >= 200 && res.status < 400) {
      const keys = [this.#o.key(request)];
      const self = new URL(request.url);
      for (const name of ['location', 'content-location']) {
        const value = res.headers.get(name);
        if (value === null || !URL.canParse(value, self)) continue;
        const target = new URL(value, self);
        if (target.origin === self.origin) keys.push(this.#o.key(new Request(target)));
      }
      // Awaited so that a client's next GET after its write never sees the old response.
      await this.#track(this.#entries.remove(keys), options);
    }
    return this.#decorate(res, undefined, { fwd: 'method', fwdStatus: res.status });
  }

  /** The request sent to the origin: without the client's validators when the response may be stored, with the cache's own when it has some. */
  #originRequest(request: Request, mayStore: boolean, stale: StoredResponse | undefined): Request {
    const h = request.headers;
    const clientConditional = h.has('if-none-match') || h.has('if-modified-since');
    if (!stale && !(mayStore && clientConditional)) return request;
    const headers = new Headers(h);
    if (mayStore || stale) {
      // The client's validators would get a bodiless 304 the cache cannot store; they are
      // answered from the full response instead.
      headers.delete('if-none-match');
      headers.delete('if-modified-since');
    }
    if (stale?.etag) headers.set('if-none-match', stale.etag);
    if (stale?.lastModified) headers.set('if-modified-since', stale.lastModified);
    return new Request(request.url, { method: request.method, headers });
  }

  /** Why a response may not be stored (RFC 9111 §3), or true when it may. */
  #storable(request: Request, res: Response, cc: Directives, rd: RequestDirectives): true | string {
    if (request.method !== 'GET') return 'method';
    if (rd.noStore) return 'request-no-store';
    const status = res.status;
    if (status < 200 || status === 206 || status === 304) return 'status';
    if (!HEURISTICALLY_CACHEABLE.has(status) && !hasExplicitFreshness(res.headers, cc)) return 'status';
    if (cc.has('no-store')) return 'no-store';
    if (cc.has('private')) return 'private';
    if (request.headers.has('authorization') && !cc.has('public') && !cc.has('s-maxage') && !cc.has('must-revalidate')) return 'authorization';
    if (res.headers.has('set-cookie') && !this.#o.storeSetCookie) return 'set-cookie';
    if (parseVary(res.headers.get('vary')) === '*') return 'vary-star';
    const length = res.headers.get('content-length');
    if (length !== null && Number(length) > this.#o.maxBodyBytes) return 'too-large';
    return true;
  }

  /** The stored form of a response's head. */
  #meta(request: Request, res: Response, cc: Directives, requestTime: number, responseTime: number): ResponseMeta {
    const named = connectionNames(res.headers);
    const headers: HeaderPair[] = [];
    for (const [name, value] of res.headers) {
      if (!isHopByHop(name, named) && name !== 'set-cookie' && name !== 'age') headers.push([name, value]);
    }
    // A cache with a clock adds the Date the origin left out (RFC 9110 §6.6.1).
    if (!res.headers.has('date')) headers.push(['date', formatHttpDate(responseTime)]);
    const vary = parseVary(res.headers.get('vary')) as string[];
    const extra = typeof this.#o.tags === 'function' ? this.#o.tags(request, res) : this.#o.tags;
    const tags = [...new Set([...responseTags(res.headers), ...(extra ?? [])])];
    return {
      status: res.status,
      headers,
      requestTime,
      responseTime,
      ...freshness(res.status, res.headers, cc, requestTime, responseTime, this.#o.policy),
      etag: res.headers.get('etag'),
      lastModified: res.headers.get('last-modified'),
      vary,
      varyValues: varyValues(vary, request.headers),
      tags,
    };
  }

  /**
   * A stored response updated by a 304 (RFC 9111 §4.3.4): the 304's fields replace the stored
   * ones, freshness restarts. Undefined when the 304 now forbids storing.
   */
  #freshen(stale: StoredResponse, notModified: Headers, requestTime: number, responseTime: number): StoredResponse | undefined {
    const named = connectionNames(notModified);
    const replaced = new Set<string>();
    const updates: HeaderPair[] = [];
    for (const [name, value] of notModified) {
      if (isHopByHop(name, named) || NOT_FRESHENED.has(name)) continue;
      replaced.add(name);
      updates.push([name, value]);
    }
    if (!replaced.has('date')) {
      replaced.add('date');
      updates.push(['date', formatHttpDate(responseTime)]);
    }
    const headers = stale.headers.filter(([name]) => !replaced.has(name)).concat(updates);
    const merged = new Headers(headers);
    const cc = parseDirectives(merged.get('cache-control'));
    if (cc.has('no-store') || cc.has('private')) return undefined;
    const age = notModified.get('age');
    if (age !== null) merged.set('age', age);
    return {
      ...stale,
      headers,
      requestTime,
      responseTime,
      ...freshness(stale.status, merged, cc, requestTime, responseTime, this.#o.policy),
      etag: merged.get('etag'),
      lastModified: merged.get('last-modified'),
    };
  }

  /**
   * True when `stale` may stand in for a failed origin (RFC 5861 §4): within the response's own
   * stale-if-error window, or within the request's where the response lets clients accept
   * stale at all (not under must-revalidate, proxy-revalidate, no-cache or s-maxage). A
   * response still fresh (forwarded for the request's no-cache, max-age or min-fresh) may too.
   */
  #mayServeOnError(stale: StoredResponse, rd: RequestDirectives): boolean {
    if (stale.mustRevalidate) return false;
    const staleness = currentAge(stale, this.#o.now()) - stale.lifetime;
    const window = Math.max(stale.sie, stale.clientMayAcceptStale ? rd.staleIfError ?? 0 : 0);
    return staleness < 0 || (window > 0 && staleness <= window);
  }

  #serveStale(stale: StoredResponse, request: Request, key: string, outcome: CacheOutcome, detail: string): Response {
    const age = currentAge(stale, this.#o.now());
    return this.#reply(stale, request, { ...outcome, ttl: stale.lifetime - age, stale: true, detail }, age, key, () => stale.body);
  }

  /** A response served from stored meta: 304 when the client's validators match, no body for HEAD. */
  #reply(meta: ResponseMeta, request: Request, outcome: CacheOutcome, age: number, key: string, body: () => Uint8Array | ReadableStream<Uint8Array>): Response {
    if (notModified(request.headers, meta)) return this.#notModifiedReply(meta, outcome, age, key);
    // The hot path: a header list handed to Response as is costs one Headers construction,
    // where building a Headers object and then setting fields on it costs several.
    const headers: HeaderPair[] = meta.headers.slice();
    headers.push(['age', ageSeconds(age)], ['cache-status', this.#status(outcome, key)]);
    if (this.#o.xCache) headers.push(['x-cache', xCacheValue(outcome)]);
    // Stored bodies are never backed by a SharedArrayBuffer; the DOM typings cannot know that.
    return new Response(request.method === 'HEAD' || NULL_BODY_STATUS.has(meta.status) ? null : (body() as BodyInit), { status: meta.status, headers });
  }

  #notModifiedReply(meta: ResponseMeta, outcome: CacheOutcome, age: number, key: string): Response {
    const headers = new Headers(meta.headers);
    headers.delete('content-length');
    this.#annotate(headers, outcome, age, key);
    return new Response(null, { status: 304, headers });
  }

  /** Passes an origin response through with its hop-by-hop fields removed and Cache-Status added. */
  #decorate(res: Response, key: string | undefined, outcome: CacheOutcome): Response {
    const headers = endToEndHeaders(res.headers);
    this.#annotate(headers, outcome, undefined, key);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }

  /** Sets Age (when served from or stored in the cache), appends this cache's Cache-Status member, and X-Cache when asked. */
  #annotate(headers: Headers, outcome: CacheOutcome, age: number | undefined, key: string | undefined): void {
    if (age !== undefined) headers.set('age', ageSeconds(age));
    headers.append('cache-status', this.#status(outcome, key));
    if (this.#o.xCache) headers.set('x-cache', xCacheValue(outcome));
  }

  #status(outcome: CacheOutcome, key: string | undefined): string {
    return formatCacheStatus(this.#o.name, outcome, this.#o.cacheStatusKey ? key : undefined);
  }

  /** A bodiless answer of the cache's own: 504 for only-if-cached, 502 for an origin answer it cannot use. */
  #synthetic(status: number, key: string, outcome: CacheOutcome): Response {
    const headers = new Headers();
    this.#annotate(headers, outcome, undefined, key);
    return new Response(null, { status, headers });
  }

  /** Keeps background work observable (idle) and alive (waitUntil); its failures go to onError. */
  #track(work: Promise<unknown>, options: WaitUntilContext): Promise<void> {
    const settled = work.then(() => undefined, (error: unknown) => this.#o.onError(error));
    this.#background.add(settled);
    void settled.then(() => this.#background.delete(settled));
    try {
      options.waitUntil?.(settled);
    } catch (error) {
      this.#o.onError(error);
    }
    return settled;
  }
}

/** The Age field value: whole seconds, clamped to 2^31 (RFC 9111 §5.1). */
function ageSeconds(ageMs: number): string {
  return String(Math.min(Math.floor(ageMs / 1000), 2147483648));
}
