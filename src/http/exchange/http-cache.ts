/**
 * The HTTP response cache: an RFC 9111 shared cache in front of any fetch-style origin.
 * Every binding (Hono, Express, Workers, Bun, Deno, node:http) is a translation onto
 * {@link HttpCache.handle}; the policy exists here once, split by concept: decision.ts (serve,
 * serve stale, or forward), forward.ts (the origin and its answers), collapsing.ts (shared
 * forwards and purge fences), storability.ts, stored-form.ts, responses.ts, ranges.ts, vary.ts.
 */
import type { Cache } from '../../cache/create-cache.ts';
import { announceDeprecation } from '../../util/deprecation.ts';
import { requestDirectives } from '../rules/cache-control.ts';
import { Forwards } from './collapsing.ts';
import { decide, type Decision } from '../rules/decision.ts';
import { EntryStore, type Lookup } from './entry-store.ts';
import { Forwarder, type ForwardJob } from './forward.ts';
import type { HandleOptions, WaitUntilContext } from './handle-options.ts';
import { showingImpliedTypes } from './implied-type.ts';
import type { OriginFetch } from './origin-call.ts';
import { resolveHttpOptions, type HttpCacheOptions, type HttpOptionsCaller, type ResolvedHttpOptions } from './options.ts';
import { missingSpans, offsetInPartial, parseRange, resolveRange, type RangeSpec } from '../rules/ranges.ts';
import { Responder, type BytesAnswer } from './responses.ts';
import { StoreHealth } from './store-health.ts';
import { handleOtherMethod, type UnsafeMethodsContext } from './unsafe-methods.ts';
import { oversizedVaryField } from '../rules/vary.ts';
import { checkKnownOptions } from '../../util/known-options.ts';
import { cdnLink } from '../../cdn/link.ts';

export type { BytesAnswer, HandleOptions, OriginFetch, WaitUntilContext };

/**
 * What {@link HttpCache.purge} removes: one URL or tag, or several of each. With `soft`, what
 * is stored turns stale instead of going away: it is revalidated (a conditional request; a 304
 * refreshes it) or served under stale-while-revalidate.
 */
export type PurgeTarget = ({ url: string } | { tag: string } | { urls?: readonly string[]; tags?: readonly string[] }) & { soft?: boolean };

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
  /**
   * {@link handle} for a binding that writes bytes itself: a stored response served whole (a
   * hit, a stale hit, a 304 to the client's validators) comes as {@link BytesAnswer}, without
   * a fetch Response being built; every other answer is the Response `handle` gives.
   */
  handleBytes(request: Request, origin: OriginFetch, options?: HandleOptions): Promise<Response | BytesAnswer>;
  /**
   * Removes the responses stored for a URL (every variant) or carrying a tag. Resolves, for a
   * URL, with how many entries existed; for a tag, with 1 once the tag is invalidated (its
   * entries become misses in every process sharing the store; they are not listed, so not
   * counted) and 0 when the store could not be reached. Immediate: a store write of that URL
   * or tag still running is awaited or cancelled first, and no request that starts after this
   * resolves joins a forward that was running for it.
   */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background work (store writes, revalidations, invalidations) has settled. */
  idle(): Promise<void>;
  /** Waits for background work, then closes the engine it opened (never a store or cache you passed in). */
  close(): Promise<void>;
  /** The engine entries live on (its `events` report store errors and corrupt entries). */
  readonly cache: Cache;
}

/** A fetch-style handler: the shape {@link withCache} wraps and returns. */
export type FetchHandler<C = WaitUntilContext> = (request: Request, ctx?: C) => Promise<Response>;

/** The handler returned by {@link withCache}: same shape as the one wrapped, plus cache controls. */
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
 * Puts a fetch-style handler behind a shared HTTP cache (the same verb as `withCache` from
 * cachette/node, /bun, /deno and /workers, which also pick the store from the environment):
 *
 * ```ts
 * const cached = withCache((req) => fetch(req), { store: memoryStore() });
 * const res = await cached(new Request('https://example.com/'));
 * await cached.purge({ tag: 'products' });
 * ```
 *
 * The context's `waitUntil`, when present, keeps store writes and background revalidations
 * alive on platforms that stop after the response (Workers).
 */
export function withCache<C extends WaitUntilContext>(handler: FetchHandler<C>, options: HttpCacheOptions): CachedHandler<C> {
  return wrapHandler(handler, options, 'withCache() from cachette/http');
}

/** Cache-Status detail of a hit read from the store while the coherent L1 is bypassed (docs/l1.md). */
const L1_BYPASSED = Object.freeze({ detail: 'l1-bypassed' });
const NONE = Object.freeze({});

/**
 * @deprecated Renamed {@link withCache}, the same function: `httpCache` is removed in the next
 * release. Its first call says so once on the console.
 */
export function httpCache<C extends WaitUntilContext>(handler: FetchHandler<C>, options: HttpCacheOptions): CachedHandler<C> {
  announceDeprecation('httpCache() from cachette/http', 'withCache() from cachette/http');
  return wrapHandler(handler, options, 'httpCache() from cachette/http');
}

/** {@link withCache} under the name the caller used, for its errors. */
function wrapHandler<C extends WaitUntilContext>(handler: FetchHandler<C>, options: HttpCacheOptions, name: string): CachedHandler<C> {
  if (typeof handler !== 'function') throw new TypeError(`${name}: the first argument must be a handler (request, ctx?) => Promise<Response>`);
  const policy = openHttpCache(options, { name });
  const cached = ((request: Request, ctx?: C) => policy.handle(request, (r) => handler(r, ctx), ctx === undefined ? undefined : { waitUntil: ctx.waitUntil?.bind(ctx) })) as CachedHandler<C>;
  return Object.assign(cached, {
    purge: (target: PurgeTarget) => policy.purge(target),
    idle: () => policy.idle(),
    close: () => policy.close(),
    httpCache: policy,
  });
}

/**
 * Creates the policy object that a binding calls per request (`handle`, `handleBytes`): what
 * {@link withCache} wraps a handler in, for code that translates requests itself. See
 * {@link HttpCacheOptions}.
 */
export function createHttpCache(options: HttpCacheOptions): HttpCache {
  return openHttpCache(options, { name: 'createHttpCache() from cachette/http' });
}

/** {@link createHttpCache} for a binding: its errors name the binding's call, and its own options count as known. */
export function openHttpCache(options: HttpCacheOptions, caller: HttpOptionsCaller): HttpCache {
  return new SharedHttpCache(resolveHttpOptions(options, caller));
}

const URI_MISS: Lookup = { kind: 'uri-miss' };
const NO_DIRECTIVES = requestDirectives(new Headers());

class SharedHttpCache implements HttpCache {
  readonly cache: Cache;
  readonly #options: ResolvedHttpOptions;
  readonly #entries: EntryStore;
  readonly #forwards: Forwards;
  readonly #responder: Responder;
  readonly #health: StoreHealth;
  readonly #forwarder: Forwarder;
  readonly #unsafe: UnsafeMethodsContext;
  /** Engine keys with a background revalidation running. */
  readonly #refreshing = new Set<string>();
  readonly #background = new Set<Promise<unknown>>();

  constructor(options: ResolvedHttpOptions) {
    this.#options = options;
    this.cache = options.cache;
    this.#forwards = new Forwards({ ms: options.hitForMissMs, now: options.now });
    this.#entries = new EntryStore(options.cache, { retainStaleMs: options.retainStaleMs, maxVariants: options.maxVariants, now: options.now });
    this.#responder = new Responder(options);
    this.#health = new StoreHealth(options.cache);
    const track = (work: Promise<unknown>, handleOptions: HandleOptions) => this.#track(work, handleOptions);
    this.#forwarder = new Forwarder({ options, entries: this.#entries, forwards: this.#forwards, responder: this.#responder, health: this.#health, track });
    this.#unsafe = {
      options,
      forwarder: this.#forwarder,
      forwards: this.#forwards,
      responder: this.#responder,
      invalidate: (keys, handleOptions) => this.#track(this.#fenceAndRemove(keys), handleOptions),
    };
  }

  handle(request: Request, origin: OriginFetch, options: HandleOptions = {}): Promise<Response> {
    return this.#handle(request, origin, options, false) as Promise<Response>;
  }

  handleBytes(request: Request, origin: OriginFetch, options: HandleOptions = {}): Promise<Response | BytesAnswer> {
    return this.#handle(request, origin, options, true);
  }

  /** Both of the above: `bytes` lets a stored response served whole come as bytes. */
  async #handle(request: Request, untypedOrigin: OriginFetch, untypedOptions: HandleOptions, bytes: boolean): Promise<Response | BytesAnswer> {
    // Every origin response shows the Content-Type its body implies before anything reads it (implied-type.ts).
    const { origin, options } = showingImpliedTypes(untypedOrigin, untypedOptions);
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD') return handleOtherMethod(this.#unsafe, request, origin, options);
    if (this.#options.bypass?.(request)) return this.#responder.relay(await origin(request), request, { fwd: 'bypass' }, undefined);
    let range: RangeSpec | undefined;
    // Range is defined for GET only (RFC 9110 §14.2); an invalid one is ignored, as if absent.
    const rangeField = method === 'GET' ? request.headers.get('range') : null;
    if (rangeField !== null) {
      const parsed = parseRange(rangeField);
      if (parsed === 'multiple') return this.#responder.relay(await origin(request), request, { fwd: 'bypass', detail: 'multiple-ranges' }, undefined);
      range = parsed;
    }
    const directives = requestDirectives(request.headers);
    const key = this.#options.key(request);
    let found: Lookup;
    try {
      found = await this.#entries.lookup(key, request.headers);
    } catch (error) {
      // Only a strict engine throws; a store failure is still a miss, never a 500.
      this.#options.onError(error);
      found = URI_MISS;
    }
    // A field the URL's responses vary on is too long to be a key (vary.ts): past the cache.
    const varyBy = found.kind === 'uri-miss' ? undefined : found.marker?.varyBy;
    if (varyBy !== undefined && oversizedVaryField(varyBy, request.headers) !== undefined) {
      return this.#responder.relay(await origin(request), request, { fwd: 'bypass', detail: 'vary-value-too-long' }, key);
    }
    const job: ForwardJob = { request, origin, options, requestDirectives: directives, key, found, forwardReason: found.kind === 'found' ? 'stale' : found.kind, lead: true, range };
    if (found.kind === 'found') return this.#fromEntry(found, job, bytes);
    if (directives.onlyIfCached) return this.#responder.synthetic(504, key, { detail: 'only-if-cached' });
    return this.#forwarder.forward(job);
  }

  async purge(target: PurgeTarget): Promise<number> {
    const { urls, tags, soft } = purgeTargets(target);
    let purged = 0;
    if (tags.length > 0) {
      await this.#forwards.fence(tags.map((tag) => ({ tag })));
      // Its entries are invalidated where they are, in every process (tags.ts), not counted.
      if (await this.#entries.invalidateTags(tags, soft)) purged += tags.length;
    }
    if (urls.length > 0) {
      const keys = urls.map((url) => this.#options.key(new Request(url)));
      purged += await this.#fenceAndRemove(keys, soft);
      // Tags reach the CDNs through the engine's invalidateTags; URLs from here (docs/cdn.md).
      await cdnLink(this.cache)?.purgeUrls(urls);
    }
    return purged;
  }

  /**
   * Fences the forwards of the keys (collapsing.ts: so the purge is immediate), then deletes
   * what is stored for them, or with `soft` marks it stale.
   */
  async #fenceAndRemove(keys: string[], soft = false): Promise<number> {
    await this.#forwards.fence(keys.map((key) => ({ key })));
    return soft ? this.#entries.markStale(keys) : this.#entries.remove(keys);
  }

  async idle(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  async close(): Promise<void> {
    await this.idle();
    this.#health.close();
    if (this.#options.ownsCache) await this.cache.close();
  }

  /** A hit's Cache-Status detail while a coherent L1 is bypassed: it was read from the store, not from memory. */
  #bypassed(): { detail?: string } {
    return this.#health.l1Bypassed ? L1_BYPASSED : NONE;
  }

  /** A stored response was found: serve it, serve it stale, or forward. */
  #fromEntry(found: Extract<Lookup, { kind: 'found' }>, job: ForwardJob, bytes: boolean): Promise<Response> | Response | BytesAnswer {
    const entry = found.entry;
    const revalidate = job.options.revalidate === undefined ? job.origin : job.options.revalidate;
    const decision = decide(entry, job.requestDirectives, this.#options.now(), revalidate !== null);
    if (entry.partial) return this.#fromPartial(found, job, decision);
    switch (decision.action) {
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: the stale copy is served while it revalidates
      case 'stale-while-revalidate':
        this.#revalidateInBackground(found, job, revalidate!);
      // falls through: the stale copy is served meanwhile
      case 'hit':
      case 'stale-hit': {
        const reply = { outcome: { hit: true, ttl: decision.remaining, stale: decision.action !== 'hit', ...this.#bypassed() }, age: decision.age, key: job.key, body: entry.body, range: job.range };
        return (bytes && this.#responder.storedBytes(entry, job.request, reply)) || this.#responder.stored(entry, job.request, reply);
      }
      default:
        if (job.requestDirectives.onlyIfCached) return this.#responder.synthetic(504, job.key, { detail: 'only-if-cached' });
        return this.#forwarder.forward({ ...job, forwardReason: decision.action === 'forward-request' ? 'request' : 'stale' });
    }
  }

  /**
   * A stored partial response (206) was found. A range within what it holds is served from it
   * while it may be served; a range beyond the representation is a 416. A full request asks
   * the origin for the one missing part, when one part is missing, and combines the two.
   */
  #fromPartial(found: Extract<Lookup, { kind: 'found' }>, job: ForwardJob, decision: Decision): Promise<Response> | Response {
    const entry = found.entry;
    const partial = entry.partial!;
    const servable = decision.action === 'hit' || decision.action === 'stale-hit';
    if (job.range !== undefined && servable && this.#responder.rangeApplies(job.request, entry)) {
      const outcome = { hit: true, ttl: decision.remaining, stale: decision.action === 'stale-hit', ...this.#bypassed() };
      const span = resolveRange(job.range, partial.length);
      if (span === undefined) return this.#responder.unsatisfiable(entry, outcome, decision.age, job.key, partial.length);
      const offset = offsetInPartial(partial, span);
      if (offset !== undefined) return this.#responder.partial(entry, outcome, decision.age, job.key, entry.body.subarray(offset, offset + span[1] - span[0]), span, partial.length);
    }
    if (job.requestDirectives.onlyIfCached) return this.#responder.synthetic(504, job.key, { detail: 'only-if-cached' });
    const gaps = missingSpans(partial);
    const strong = entry.etag !== null && !entry.etag.startsWith('W/');
    if (job.range === undefined && job.request.method === 'GET' && !job.requestDirectives.noStore && gaps.length === 1 && strong && partial.length <= this.#options.maxBodyBytes) {
      return this.#forwarder.forward({ ...job, forwardReason: 'partial', lead: false, completion: { entry, gap: gaps[0]! } });
    }
    return this.#forwarder.forward({ ...job, forwardReason: 'partial', lead: job.range === undefined });
  }

  /** Starts one revalidation of a stale entry after its stale copy was served. */
  #revalidateInBackground(found: Extract<Lookup, { kind: 'found' }>, job: ForwardJob, revalidate: OriginFetch): void {
    if (this.#refreshing.has(found.storeKey)) return;
    this.#refreshing.add(found.storeKey);
    const headers = new Headers(job.request.headers);
    // The refresh is for the whole stored response, whatever this client asked of it.
    for (const name of ['cache-control', 'pragma', 'range', 'if-range']) headers.delete(name);
    // Not a shared forward: other clients keep getting the stale copy instead of waiting for it.
    const run = this.#forwarder
      .forward({ ...job, request: new Request(job.request.url, { headers }), origin: revalidate, requestDirectives: NO_DIRECTIVES, forwardReason: 'stale', lead: false, range: undefined })
      // Reading nothing is enough: the shared body keeps reading until the copy is stored.
      .then((response) => response.body?.cancel())
      .finally(() => this.#refreshing.delete(found.storeKey));
    this.#track(run, job.options);
  }

  /** Keeps background work observable (idle) and alive (waitUntil); its failures go to onError. */
  #track(work: Promise<unknown>, options: WaitUntilContext): Promise<void> {
    const settled = work.then(
      () => undefined,
      (error: unknown) => this.#options.onError(error),
    );
    this.#background.add(settled);
    void settled.then(() => this.#background.delete(settled));
    try {
      options.waitUntil?.(settled);
    } catch (error) {
      this.#options.onError(error);
    }
    return settled;
  }
}

/** The URLs and tags a purge names, checked: a TypeError says what a purge takes. */
function purgeTargets(target: PurgeTarget): { urls: string[]; tags: string[]; soft: boolean } {
  const bad = () => new TypeError(`httpCache.purge: pass { url: "<absolute URL>" }, { tag: "<tag>" } or { urls: [...], tags: [...] }, with soft: true to mark stale, got ${JSON.stringify(target)}`);
  if (typeof target !== 'object' || target === null) throw bad();
  const named = target as { url?: unknown; urls?: unknown; tag?: unknown; tags?: unknown; soft?: unknown };
  checkKnownOptions(named, ['url', 'urls', 'tag', 'tags', 'soft'], 'httpCache.purge');
  const list = (one: unknown, many: unknown): unknown[] => [...(one === undefined ? [] : [one]), ...(many === undefined ? [] : Array.isArray(many) ? many : [many])];
  const urls = list(named.url, named.urls);
  const tags = list(named.tag, named.tags);
  if (urls.length + tags.length === 0) throw bad();
  if (!urls.every((url) => typeof url === 'string' && URL.canParse(url)) || !tags.every((tag) => typeof tag === 'string' && tag.length > 0)) throw bad();
  if (named.soft !== undefined && typeof named.soft !== 'boolean') throw new TypeError(`httpCache.purge: "soft" must be a boolean, got ${typeof named.soft}`);
  return { urls: urls as string[], tags: tags as string[], soft: named.soft === true };
}
