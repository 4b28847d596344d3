/**
 * Forwarding a request to the origin and making use of the answer: joining a forward already
 * running for the same key, revalidating a stored response (304 handling, RFC 9111 §4.3),
 * storing and sharing what may be stored, byte ranges the origin answered (206), and standing
 * in with a stale response or a 504 when the origin fails.
 */
import type { RequestDirectives } from '../rules/cache-control.ts';
import type { CacheOutcome, ForwardReason } from '../rules/cache-status.ts';
import type { Forward, ForwardOutcome, Forwards } from './collapsing.ts';
import { notModified, selectsForUpdate, validatorsOf } from '../rules/conditional.ts';
import { mayServeOnError } from '../rules/decision.ts';
import type { EntryStore, Lookup, WriteResult } from './entry-store.ts';
import { currentAge } from '../rules/freshness.ts';
import type { HandleOptions } from './handle-options.ts';
import { badStatusMessage, callOrigin, discardBody, isFinalStatus, originRequest, OriginTimeoutError, readAtMost, type OriginFetch } from './origin-call.ts';
import type { ResolvedHttpOptions } from './options.ts';
import { addSpan, parseContentRange, type RangeSpec, type Span } from '../rules/ranges.ts';
import { resumer } from './resume.ts';
import { responseDirectives, type ResponseDirectives } from '../rules/response-directives.ts';
import type { Responder } from './responses.ts';
import { SharedBody, type SharedBodyOptions } from './shared-body.ts';
import { unstorableReason } from '../rules/storability.ts';
import type { StoreHealth } from './store-health.ts';
import { freshened, storedMeta, type Exchange, type StoredFormPolicy } from '../rules/stored-form.ts';
import type { StoredResponse } from '../rules/stored-response.ts';
import { MAX_RESPONSE_TAGS, responseTags } from '../rules/tags.ts';
import { parseVary, sameValues, varyValues } from '../rules/vary.ts';

/** One forward's inputs, as one object. */
export interface ForwardJob {
  /** The client's request. */
  request: Request;
  /** Called at most once for this job. */
  origin: OriginFetch;
  options: HandleOptions;
  /** The directives of the client's request (RFC 9111 §5.2.1). */
  requestDirectives: RequestDirectives;
  /** The primary key. */
  key: string;
  /** What the lookup found. */
  found: Lookup;
  /** Why the request goes forward, for Cache-Status (its `fwd` parameter). */
  forwardReason: ForwardReason;
  /** May join a running forward for its key or become the one others join (false for background revalidations and ranges). */
  lead: boolean;
  /** The single byte range the client asked for, if any. */
  range?: RangeSpec;
  /** A full request with part of the body stored: only `gap` is asked for, and combined with `entry`. */
  completion?: { entry: StoredResponse; gap: Span };
}

/** What the cache reads from an origin response before deciding to store it: the directives it follows and the tags it carries. */
export interface OriginAnswer {
  directives: ResponseDirectives;
  tags: readonly string[];
}

/** What the forwarder works with. */
export interface ForwarderContext {
  options: ResolvedHttpOptions;
  entries: EntryStore;
  forwards: Forwards;
  responder: Responder;
  health: StoreHealth;
  /** Keeps background work observable (idle) and alive (waitUntil). */
  track(work: Promise<unknown>, options: HandleOptions): Promise<void>;
}

const URI_MISS: Lookup = { kind: 'uri-miss' };

/** Reasons not to store that come from the request, not the URL's answer: they put no URL under hit-for-miss. */
const REQUEST_REASONS: ReadonlySet<string> = new Set(['request-no-store', 'method', 'authorization', 'vary-value-too-long']);

/** Sends requests to the origin and makes use of what comes back. */
export class Forwarder {
  readonly #options: ResolvedHttpOptions;
  readonly #entries: EntryStore;
  readonly #forwards: Forwards;
  readonly #responder: Responder;
  readonly #health: StoreHealth;
  readonly #track: ForwarderContext['track'];
  readonly #policy: StoredFormPolicy;

  constructor(context: ForwarderContext) {
    this.#options = context.options;
    this.#entries = context.entries;
    this.#forwards = context.forwards;
    this.#responder = context.responder;
    this.#health = context.health;
    this.#track = context.track;
    this.#policy = { freshness: context.options.policy, setCookie: context.options.setCookie, targetedFields: context.options.targetedFields };
  }

  /**
   * Answers `job` through the origin: by joining the forward already running for its key when
   * the response may be shared with it, otherwise with a forward of its own.
   */
  async forward(job: ForwardJob): Promise<Response> {
    // Looked up and registered without an await in between: requests that reach this point in
    // the same tick (in-process callers, Workers) must find each other. A URL under
    // hit-for-miss (collapsing.ts) is neither joined nor led: each request goes on its own.
    const collapses = job.lead && job.range === undefined && !this.#forwards.passes(job.key, job.request.headers);
    const leader = collapses && !job.requestDirectives.noCache ? this.#forwards.leader(job.key) : undefined;
    if (leader) {
      const joined = await this.#join(job, leader);
      if (joined) return joined;
    }
    // Asked again: the answer this request waited for may have put the URL under hit-for-miss.
    const leads = collapses && job.request.method === 'GET' && (leader === undefined || !this.#forwards.passes(job.key, job.request.headers));
    const forward = job.requestDirectives.noStore ? undefined : this.#forwards.begin(job.key, leads);
    try {
      return await this.#exchange(job, forward);
    } catch (error) {
      // Whatever was not settled by now is a failure for the requests that joined.
      this.#settle(forward, { kind: 'failed', fwdStatus: undefined, detail: 'origin-error' });
      throw error;
    }
  }

  /** Serves `job` from `leader`, the forward running for its key, when its response may be shared. */
  async #join(job: ForwardJob, leader: Forward): Promise<Response | undefined> {
    const outcome = await leader.outcome;
    // A purge while waiting: the leader's response must not reach anyone else.
    if (leader.purged) return undefined;
    if (outcome.kind === 'failed') return this.#joinedFailure(job, outcome);
    if (outcome.kind !== 'shared' || !outcome.body.joinable) return undefined;
    const { meta } = outcome;
    if (meta.vary.length > 0 && !sameValues(varyValues(meta.vary, job.request.headers), meta.varyValues)) return undefined;
    const age = currentAge(meta, this.#options.now());
    // A response that may not be reused without validation (no-cache, or stale on arrival)
    // answers the request it was fetched for, and no other: each waiter asks for itself.
    if (meta.lifetime - age <= 0) return undefined;
    const outcomeFor: CacheOutcome = { fwd: job.forwardReason, fwdStatus: outcome.fwdStatus, ttl: meta.lifetime - age, collapsed: true };
    return this.#responder.stored(meta, job.request, { outcome: outcomeFor, age, key: job.key, body: () => outcome.body.stream(), length: outcome.length });
  }

  /** A joined forward failed: a stale copy where stale-if-error allows, otherwise 504. */
  #joinedFailure(job: ForwardJob, failed: Extract<ForwardOutcome, { kind: 'failed' }>): Response {
    const outcome: CacheOutcome = { fwd: job.forwardReason, fwdStatus: failed.fwdStatus, collapsed: true };
    const stale = storedComplete(job.found);
    if (stale && mayServeOnError(stale, job.requestDirectives, this.#options.now())) return this.#serveStale(stale, job, outcome);
    return this.#responder.synthetic(504, job.key, { ...outcome, detail: failed.detail }, 'Gateway Timeout: the origin request this one waited for failed');
  }

  async #exchange(job: ForwardJob, forward: Forward | undefined): Promise<Response> {
    const stale = job.completion ? undefined : storedComplete(job.found);
    const validators = stale !== undefined && (stale.etag !== null || stale.lastModified !== null) ? stale : undefined;
    const mayStore = job.request.method === 'GET' && !job.requestDirectives.noStore;
    const gap = job.completion && { span: job.completion.gap, etag: job.completion.entry.etag! };
    const forwarded = originRequest(job.request, { mayStore, validators, gap });
    const requestTime = this.#options.now();
    let response: Response;
    try {
      response = await callOrigin(job.origin, forwarded, this.#options.originTimeoutMs);
    } catch (error) {
      const timedOut = error instanceof OriginTimeoutError;
      this.#settle(forward, { kind: 'failed', fwdStatus: undefined, detail: timedOut ? 'origin-timeout' : 'origin-error' });
      if (stale && mayServeOnError(stale, job.requestDirectives, this.#options.now())) return this.#serveStale(stale, job, { fwd: job.forwardReason });
      if (timedOut) return this.#responder.synthetic(504, job.key, { fwd: job.forwardReason, detail: 'origin-timeout' }, `Gateway Timeout: ${(error as Error).message}`);
      throw error;
    }
    const exchange: Exchange = { requestTime, responseTime: this.#options.now() };
    const status = response.status;
    // A protocol switch (a WebSocket upgrade on Bun or Deno) belongs to that connection: untouched.
    if (status === 101) {
      this.#settle(forward, { kind: 'unshared' });
      return response;
    }
    const mayServeStale = stale !== undefined && mayServeOnError(stale, job.requestDirectives, this.#options.now());
    if (!isFinalStatus(status)) {
      discardBody(response);
      this.#settle(forward, { kind: 'failed', fwdStatus: status, detail: 'origin-status' });
      if (mayServeStale) return this.#serveStale(stale, job, { fwd: job.forwardReason, fwdStatus: status });
      return this.#responder.synthetic(502, job.key, { fwd: job.forwardReason, fwdStatus: status, detail: 'origin-status' }, badStatusMessage(status));
    }
    if (status >= 500 && mayServeStale) {
      discardBody(response);
      this.#settle(forward, { kind: 'failed', fwdStatus: status, detail: 'origin-error' });
      return this.#serveStale(stale, job, { fwd: job.forwardReason, fwdStatus: status });
    }
    if (status === 304 && validators) return this.#revalidated(job, response, validators, exchange, forward);
    if (job.completion) return this.#completed(job, response, exchange, forward);
    return this.#answered(job, response, exchange, forward);
  }

  /** Continues with a usable origin answer: stored and shared when it may be, passed through otherwise. */
  #answered(job: ForwardJob, response: Response, exchange: Exchange, forward: Forward | undefined): Promise<Response> | Response {
    const status = response.status;
    const answer: OriginAnswer = { directives: responseDirectives(response.headers, this.#options.targetedFields), tags: responseTags(job.request, response, this.#options.tags) };
    const reason = job.requestDirectives.noStore
      ? 'request-no-store'
      : job.request.method !== 'GET'
        ? 'method'
        : unstorableReason(job.request, response, answer.directives, job.requestDirectives, this.#options, answer.tags);
    if (reason !== undefined || !forward) {
      if (reason !== undefined && !REQUEST_REASONS.has(reason)) this.#noteShareable(job, status, false, parseVary(response.headers.get('vary')));
      this.#settle(forward, status >= 500 ? { kind: 'failed', fwdStatus: status, detail: 'origin-error' } : { kind: 'unshared' });
      return this.#responder.fromOrigin(response, job.request, { fwd: job.forwardReason, fwdStatus: status, detail: reason }, job.key);
    }
    if (status === 206) return this.#partial(job, response, answer, exchange, forward);
    return this.storeAndShare(job, response, answer, exchange, forward);
  }

  /**
   * Stores a storable response while streaming it to the client, and shares it with the
   * requests that join this forward. Also the path of a POST whose response answers later
   * GETs (RFC 9110 §9.3.3).
   */
  async storeAndShare(job: ForwardJob, response: Response, answer: OriginAnswer, exchange: Exchange, forward: Forward): Promise<Response> {
    const meta = storedMeta(job.request, response, answer.directives, exchange, answer.tags, this.#policy);
    forward.carries(meta.tags);
    const fwdStatus = response.status;
    const freshOnArrival = meta.lifetime - meta.initialAge > 0;
    const notWorthIt = !freshOnArrival && meta.etag === null && meta.lastModified === null && meta.staleWhileRevalidateMs === 0 && meta.staleIfErrorMs === 0;
    this.#noteShareable(job, fwdStatus, freshOnArrival, meta.vary);
    if (notWorthIt) {
      this.#settle(forward, fwdStatus >= 500 ? { kind: 'failed', fwdStatus, detail: 'origin-error' } : { kind: 'unshared' });
      return this.#responder.fromOrigin(response, job.request, { fwd: job.forwardReason, fwdStatus, detail: 'stale-on-arrival' }, job.key);
    }
    const body = new SharedBody(response.body, { ...this.#bodyBounds(), resume: this.#resumer(job, response) });
    const stored = this.#track(
      body.complete.then((bytes) => bytes && forward.store(() => this.#write(job.key, { ...meta, body: bytes }))),
      job.options,
    );
    this.#settle(forward, { kind: 'shared', meta, body, length: declaredLength(response.headers), fwdStatus }, stored);
    // This client's reader exists before anything is awaited, so that no chunk is dropped before it reads.
    const stream = body.stream();
    const verdict = await this.#storedVerdict(response, body);
    const outcome: CacheOutcome = { fwd: job.forwardReason, fwdStatus, ttl: meta.lifetime - meta.initialAge, stored: verdict === true, detail: verdict === true ? undefined : verdict };
    // The client that caused the forward gets the origin's own fields (its Set-Cookie included);
    // clients served from the stored copy get the stored ones.
    if (this.#responder.clientHasIt(job.request, meta)) {
      void stream.cancel();
      return this.#responder.notModified(meta, outcome, meta.initialAge, job.key);
    }
    return this.#responder.tagged(this.#responder.fromOrigin(response, job.request, outcome, job.key, stream, meta.initialAge), meta.tags);
  }

  /**
   * Whether Cache-Status may say `stored` (RFC 9211 §2.6). Never while the store is known to
   * be down. Without a Content-Length the body's size is unknown when the head is sent: once
   * the microtasks queued now have run (a body already in memory has then been read to its
   * end, however many streams it was piped through), a body still streaming gets no claim
   * either way (undefined), and one found too large gets `too-large`.
   */
  async #storedVerdict(response: Response, body: SharedBody): Promise<true | string | undefined> {
    if (this.#health.knownDown) return 'store-down';
    if (!body.settled && !response.headers.has('content-length')) await Promise.race([body.complete, afterMicrotasks()]);
    if (!body.settled) return response.headers.has('content-length') ? true : undefined;
    if ((await body.complete) !== undefined) return true;
    return body.size > this.#options.maxBodyBytes ? 'too-large' : undefined;
  }

  /** The own path for a client that falls behind on this forward's shared body, when the origin can give one. */
  #resumer(job: ForwardJob, response: Response): ((offset: number) => Promise<ReadableStream<Uint8Array>>) | undefined {
    const again = job.options.revalidate === undefined ? job.origin : job.options.revalidate;
    return again === null ? undefined : resumer(again, job.request, response.headers.get('etag'), this.#options.originTimeoutMs);
  }

  /** A 304 answered the cache's conditional request (RFC 9111 §4.3.3, §4.3.4). */
  async #revalidated(job: ForwardJob, response: Response, stale: StoredResponse, exchange: Exchange, forward: Forward | undefined): Promise<Response> {
    discardBody(response);
    if (!selectsForUpdate(response.headers, stale)) {
      // §4.3.4: the 304 speaks of a response the cache does not hold, so it updates nothing, and
      // the stored one is now known to be outdated. It is removed before the forward is
      // released, so that neither a waiting request nor the retry's write can meet it again.
      await this.#track(this.#entries.remove([job.key]), job.options);
      this.#settle(forward, { kind: 'unshared' });
      const outcome: CacheOutcome = { fwd: job.forwardReason, fwdStatus: 304, detail: 'validator-mismatch' };
      // A client whose own validators the 304 satisfies may have it as it is.
      if (notModified(job.request.headers, validatorsOf(response.headers))) return this.#responder.fromOrigin(response, job.request, outcome, job.key);
      return this.#retry(job, outcome);
    }
    const fresh = freshened(stale, job.request, response.headers, exchange, this.#policy);
    this.#noteShareable(job, 304, fresh !== undefined && fresh.lifetime - fresh.initialAge > 0, stale.vary);
    const write = fresh === undefined ? this.#entries.remove([job.key]) : forward ? forward.store(() => this.#write(job.key, fresh)) : Promise.resolve();
    const tracked = this.#track(write, job.options);
    const served = fresh ?? stale;
    this.#settle(forward, fresh ? { kind: 'shared', meta: fresh, body: new SharedBody(fresh.body, this.#bodyBounds()), length: fresh.body.byteLength, fwdStatus: 304 } : { kind: 'unshared' }, tracked);
    const age = currentAge(served, exchange.responseTime);
    // The client that caused the revalidation gets the cookie the origin set for it, whatever is stored.
    const extra = this.#options.setCookie === 'store' ? undefined : response.headers.getSetCookie().map((cookie): [string, string] => ['set-cookie', cookie]);
    return this.#responder.stored(served, job.request, {
      outcome: { fwd: job.forwardReason, fwdStatus: 304, ttl: served.lifetime - age },
      age,
      key: job.key,
      body: served.body,
      range: job.range,
      extra,
    });
  }

  /**
   * Fetches the full response again after an answer the cache could not use, through the
   * fetch that may still be called (`revalidate`), or answers 502 when there is none.
   */
  #retry(job: ForwardJob, outcome: CacheOutcome): Promise<Response> | Response {
    const retry = job.options.revalidate === undefined ? job.origin : job.options.revalidate;
    if (retry === null) return this.#responder.synthetic(502, job.key, outcome);
    // Nothing stored any more: the retry is unconditional, so it cannot end here again.
    return this.forward({ ...job, origin: retry, found: URI_MISS, completion: undefined });
  }

  /** The origin answered a request for the missing part of a stored partial body. */
  async #completed(job: ForwardJob, response: Response, exchange: Exchange, forward: Forward | undefined): Promise<Response> {
    const { entry, gap } = job.completion!;
    const range = parseContentRange(response.headers.get('content-range'));
    const matches =
      response.status === 206 && range !== undefined && range.span[0] === gap[0] && range.span[1] === gap[1] && range.length === entry.partial!.length && response.headers.get('etag') === entry.etag;
    if (!matches && response.status === 200) return this.#answered({ ...job, completion: undefined }, response, exchange, forward);
    // The part is read whole before answering (the client gets one complete body), and never
    // beyond what it announced.
    let bytes: Uint8Array | undefined;
    if (matches) bytes = await readAtMost(response.body, gap[1] - gap[0]);
    else discardBody(response);
    if (bytes === undefined || bytes.byteLength !== gap[1] - gap[0]) {
      // Another representation, a refusal or a wrong length: drop the part and fetch in full.
      await this.#track(this.#entries.remove([job.key]), job.options);
      this.#settle(forward, { kind: 'unshared' });
      return this.#retry(job, { fwd: job.forwardReason, fwdStatus: response.status, detail: 'partial-mismatch' });
    }
    const whole = addSpan({ partial: entry.partial!, body: entry.body }, entry.partial!.length, gap, bytes);
    const directives = responseDirectives(response.headers, this.#options.targetedFields);
    const meta = storedMeta(job.request, response, directives, exchange, responseTags(job.request, response, this.#options.tags), this.#policy);
    const complete: StoredResponse = { ...meta, status: 200, body: whole.body };
    const stored =
      forward && meta.tags.length <= MAX_RESPONSE_TAGS
        ? this.#track(
            forward.store(() => this.#write(job.key, complete)),
            job.options,
          )
        : undefined;
    this.#settle(forward, { kind: 'unshared' }, stored);
    const outcome: CacheOutcome = { fwd: job.forwardReason, fwdStatus: 206, ttl: complete.lifetime - complete.initialAge, stored: stored !== undefined && !this.#health.knownDown };
    return this.#responder.stored(complete, job.request, { outcome, age: complete.initialAge, key: job.key, body: complete.body });
  }

  /**
   * A 206 from the origin, stored (`storePartial`) when it is a single range of a
   * representation with a strong ETag and a known length: its bytes join the parts already
   * stored for that representation (RFC 9111 §3.4), and a whole one becomes a complete 200.
   */
  async #partial(job: ForwardJob, response: Response, answer: OriginAnswer, exchange: Exchange, forward: Forward): Promise<Response> {
    const range = parseContentRange(response.headers.get('content-range'));
    const etag = response.headers.get('etag');
    if (range === undefined || range.length === undefined || etag === null || etag.startsWith('W/') || range.span[1] - range.span[0] > this.#options.maxBodyBytes) {
      this.#settle(forward, { kind: 'unshared' });
      return this.#responder.fromOrigin(response, job.request, { fwd: job.forwardReason, fwdStatus: 206, detail: 'partial-unusable' }, job.key);
    }
    const length = range.length;
    const meta = storedMeta(job.request, response, answer.directives, exchange, answer.tags, this.#policy);
    forward.carries(meta.tags);
    const found = storedEntry(job.found);
    const previous = found?.partial && found.etag === etag && found.partial.length === length ? { partial: found.partial, body: found.body } : undefined;
    const body = new SharedBody(response.body, this.#bodyBounds());
    const stored = this.#track(
      body.complete.then((bytes) => {
        if (!bytes || bytes.byteLength !== range.span[1] - range.span[0]) return;
        const merged = addSpan(previous, length, range.span, bytes);
        if (merged.body.byteLength > this.#options.maxBodyBytes) return;
        const whole = merged.partial.spans.length === 1 && merged.partial.spans[0]![0] === 0 && merged.partial.spans[0]![1] === length;
        const entry: StoredResponse = whole ? { ...meta, status: 200, body: merged.body } : { ...meta, body: merged.body, partial: merged.partial };
        return forward.store(() => this.#write(job.key, entry));
      }),
      job.options,
    );
    this.#settle(forward, { kind: 'unshared' }, stored);
    const stream = body.stream();
    const verdict = await this.#storedVerdict(response, body);
    const outcome: CacheOutcome = { fwd: job.forwardReason, fwdStatus: 206, stored: verdict === true, detail: verdict === true ? undefined : verdict };
    return this.#responder.tagged(this.#responder.fromOrigin(response, job.request, outcome, job.key, stream, meta.initialAge), meta.tags);
  }

  #serveStale(stale: StoredResponse, job: ForwardJob, outcome: CacheOutcome): Response {
    const age = currentAge(stale, this.#options.now());
    return this.#responder.stored(stale, job.request, {
      outcome: { ...outcome, ttl: stale.lifetime - age, stale: true, detail: 'stale-if-error' },
      age,
      key: job.key,
      body: stale.body,
      range: job.range,
    });
  }

  async #write(key: string, entry: StoredResponse): Promise<WriteResult> {
    const result = await this.#entries.write(key, entry);
    this.#health.wrote(result !== 'store-failed');
    return result;
  }

  /**
   * Records whether the answer (with `status`) to a full GET of `job`'s URL could be shared
   * with requests waiting for it: when not, the URL goes under hit-for-miss (collapsing.ts);
   * when it could, that ends at once. `vary` names the fields the answer varied on ('*': all).
   * A 5xx is a failure for the waiters (a stale copy or a 504), not an answer: collapsing goes
   * on sparing a failing origin.
   */
  #noteShareable(job: ForwardJob, status: number, shareable: boolean, vary: readonly string[] | '*'): void {
    if (job.request.method !== 'GET' || job.range !== undefined || job.completion !== undefined || (!shareable && status >= 500)) return;
    if (shareable) this.#forwards.unpass(job.key);
    else this.#forwards.pass(job.key, vary === '*' ? [] : vary, job.request.headers);
  }

  #bodyBounds(): SharedBodyOptions {
    return { limit: this.#options.maxBodyBytes, window: this.#options.shareWindowBytes, idleTimeoutMs: this.#options.originIdleTimeoutMs, stallTimeoutMs: this.#options.slowClientTimeoutMs };
  }

  /** Tells the joiners what they get, and releases the forward once its write (if any) settled. */
  #settle(forward: Forward | undefined, outcome: ForwardOutcome, write?: Promise<unknown>): void {
    if (!forward) return;
    forward.settle(outcome);
    if (write) void write.finally(() => this.#forwards.end(forward));
    else this.#forwards.end(forward);
  }
}

/** The body length an origin response declares, when its Content-Length is one decimal number. */
function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** The complete stored response a lookup found (not a partial one). */
function storedComplete(found: Lookup): StoredResponse | undefined {
  const entry = storedEntry(found);
  return entry?.partial === undefined ? entry : undefined;
}

function storedEntry(found: Lookup): StoredResponse | undefined {
  return found.kind === 'found' ? found.entry : undefined;
}

/**
 * Resolves once every microtask queued so far, and those they queue, have run: through
 * setImmediate where the runtime has it (no 1 ms timer clamp), otherwise a zero timeout.
 */
function afterMicrotasks(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
