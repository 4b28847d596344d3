/**
 * Purges forwarded to CDNs (docs/cdn.md): the tags and URLs the engine invalidated, gathered for
 * one tick, split by each forwarder's per-request bounds, sent with bounded retries, counted.
 *
 * A request is retried when it may pass (a network error, a timeout, a 429, a 5xx), after the
 * CDN's `Retry-After` when it gave one, else after an exponential backoff with full jitter;
 * never more than `attempts` times in all, never past `maxElapsed` since the first try. Any
 * other answer fails at once. The caller that invalidated waits at most `cdnWait` (default 0:
 * not at all); the sending goes on in the background, where `cache.idle()` and `close()` see it,
 * and `close()` aborts what is still running when its timeout passes.
 */
import { toMs, type Duration } from '../util/duration.ts';
import { checkKnownOptions, checkOptionsObject } from '../util/known-options.ts';
import { CdnPurgeError, type CdnPurger, type PurgeBatch } from './types.ts';

/** How purge requests are retried (`createCache({ cdnRetry })`). */
export interface CdnRetryOptions {
  /** Tries of one request in all, the first included. Default 5. */
  attempts?: number;
  /** No retry starts later than this after the first try. Default 30 s. */
  maxElapsed?: Duration;
  /** The first backoff's bound; each retry doubles it, up to 10 s (the wait is a random fraction of it). Default 200 ms. */
  baseDelay?: Duration;
  /** How long one try may take before it is aborted (and may be retried). Default 10 s. */
  timeout?: Duration;
}

/** What forwarding needs from the engine: its counters, an event per failure, and the set of background work. */
export interface ForwardingHost {
  readonly counters: { cdnSent: number; cdnRetried: number; cdnFailed: number };
  /** A request given up on: `attempts` tries were made. */
  failed(purger: string, batch: PurgeBatch, attempts: number, error: CdnPurgeError): void;
  /** Keeps `work` where `idle()` and `close()` wait for it (and hands it to a `waitUntil`). */
  track(work: Promise<unknown>): void;
}

interface ResolvedRetry {
  attempts: number;
  maxElapsedMs: number;
  baseDelayMs: number;
  timeoutMs: number;
}

const MAX_BACKOFF_MS = 10_000;

/** The `cdn`, `cdnWait` and `cdnRetry` options of createCache, checked. */
export function resolveCdn(cdn: unknown, cdnWait: Duration | undefined, retry: CdnRetryOptions | undefined): { purgers: CdnPurger[]; waitMs: number; retry: ResolvedRetry } | undefined {
  if (cdn === undefined) return undefined;
  if (!Array.isArray(cdn)) throw new TypeError('createCache: "cdn" must be an array of purge forwarders (cloudflarePurge(…), fastlyPurge(…), … from cachette/cdn)');
  for (const purger of cdn as unknown[]) {
    const candidate = purger as Partial<CdnPurger> | null;
    if (typeof candidate?.send !== 'function' || typeof candidate.name !== 'string' || typeof candidate.limits !== 'object') {
      throw new TypeError('createCache: every "cdn" entry must be a purge forwarder from cachette/cdn (an object with name, limits and send)');
    }
  }
  if (retry !== undefined) {
    checkOptionsObject(retry, 'createCache: cdnRetry');
    checkKnownOptions(retry, ['attempts', 'maxElapsed', 'baseDelay', 'timeout'] satisfies ReadonlyArray<keyof CdnRetryOptions>, 'createCache: cdnRetry');
  }
  const attempts = retry?.attempts ?? 5;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100) throw new RangeError(`createCache: cdnRetry.attempts must be an integer from 1 to 100, got ${attempts}`);
  const resolved = {
    attempts,
    maxElapsedMs: toMs(retry?.maxElapsed ?? 30_000, 'cdnRetry.maxElapsed'),
    baseDelayMs: toMs(retry?.baseDelay ?? 200, 'cdnRetry.baseDelay'),
    timeoutMs: toMs(retry?.timeout ?? 10_000, 'cdnRetry.timeout'),
  };
  if (!Number.isFinite(resolved.maxElapsedMs) || !Number.isFinite(resolved.timeoutMs) || resolved.timeoutMs === 0) {
    throw new RangeError('createCache: cdnRetry.maxElapsed and cdnRetry.timeout must be finite (and timeout greater than 0)');
  }
  const waitMs = toMs(cdnWait ?? 0, 'cdnWait');
  if (!Number.isFinite(waitMs)) throw new RangeError('createCache: cdnWait must be finite: a caller never waits for a CDN without bound');
  return { purgers: cdn as CdnPurger[], waitMs, retry: resolved };
}

/** The purges of one cache to its CDNs. */
export class CdnForwarding {
  readonly #purgers: readonly CdnPurger[];
  readonly #retry: ResolvedRetry;
  readonly #waitMs: number;
  readonly #host: ForwardingHost;
  readonly #closing = new AbortController();
  /** What this tick asked for, sent together once it ends. */
  #pending: { tags: Set<string>; urls: Set<string>; sent: Promise<void> } | undefined;

  constructor(settings: { purgers: readonly CdnPurger[]; waitMs: number; retry: ResolvedRetry }, host: ForwardingHost) {
    this.#purgers = settings.purgers;
    this.#retry = settings.retry;
    this.#waitMs = settings.waitMs;
    this.#host = host;
  }

  /**
   * Queues purges of `tags` and `urls` with the others of this tick. Resolves once they were
   * sent (or given up on), or once `cdnWait` passed, whichever is first; at once when `cdnWait`
   * is 0. Never rejects: failures are counted and reported as `cdnFailed` events.
   */
  purge(tags: readonly string[], urls: readonly string[]): Promise<void> | undefined {
    if (this.#closing.signal.aborted || (tags.length === 0 && urls.length === 0)) return undefined;
    let pending = this.#pending;
    if (pending === undefined) {
      const gathered = { tags: new Set<string>(), urls: new Set<string>() };
      const sent = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
        this.#pending = undefined;
        return this.#sendAll(gathered.tags, gathered.urls);
      });
      pending = this.#pending = { ...gathered, sent };
      this.#host.track(sent);
    }
    for (const tag of tags) pending.tags.add(tag);
    for (const url of urls) pending.urls.add(url);
    return this.#waitMs === 0 ? undefined : bounded(pending.sent, this.#waitMs);
  }

  /** Aborts every request still running or waiting to retry; later purges are not sent. */
  close(): void {
    this.#closing.abort(new DOMException('cachette: the cache is closing', 'AbortError'));
  }

  async #sendAll(tags: Set<string>, urls: Set<string>): Promise<void> {
    // One forwarder's requests one after another (its rate limit is per account), the forwarders at once.
    await Promise.all(
      this.#purgers.map(async (purger) => {
        for (const batch of batches(purger, [...tags], [...urls])) await this.#deliver(purger, batch);
      }),
    );
  }

  async #deliver(purger: CdnPurger, batch: PurgeBatch): Promise<void> {
    const { attempts, maxElapsedMs, baseDelayMs } = this.#retry;
    const signal = this.#closing.signal;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let failure: CdnPurgeError;
      try {
        await this.#attempt(purger, batch);
        this.#host.counters.cdnSent++;
        return;
      } catch (error) {
        failure = error instanceof CdnPurgeError ? error : new CdnPurgeError(`cachette/cdn ${purger.name}: ${error instanceof Error ? error.message : String(error)}`, undefined, false);
      }
      const delay = failure.retryAfterMs ?? Math.random() * Math.min(MAX_BACKOFF_MS, baseDelayMs * 2 ** (attempt - 1));
      if (signal.aborted || !failure.retryable || attempt >= attempts || Date.now() - started + delay > maxElapsedMs) {
        this.#host.counters.cdnFailed++;
        this.#host.failed(
          purger.name,
          batch,
          attempt,
          signal.aborted ? new CdnPurgeError(`cachette/cdn ${purger.name}: the cache closed before the purge was sent (${failure.message})`, failure.status, false) : failure,
        );
        return;
      }
      this.#host.counters.cdnRetried++;
      await sleep(delay, signal);
    }
  }

  /** One try, aborted by close() or by its own timeout (then retryable). */
  async #attempt(purger: CdnPurger, batch: PurgeBatch): Promise<void> {
    const controller = new AbortController();
    if (this.#closing.signal.aborted) controller.abort(this.#closing.signal.reason);
    const onClose = () => controller.abort(this.#closing.signal.reason);
    this.#closing.signal.addEventListener('abort', onClose, { once: true });
    const timer = setTimeout(() => controller.abort(new CdnPurgeError(`cachette/cdn ${purger.name}: no answer within ${this.#retry.timeoutMs} ms`, undefined, true)), this.#retry.timeoutMs);
    try {
      await purger.send(batch, controller.signal);
    } catch (error) {
      // An abort by the timer surfaces as fetch's AbortError: the reason says what happened.
      throw controller.signal.aborted && controller.signal.reason instanceof CdnPurgeError ? controller.signal.reason : error;
    } finally {
      clearTimeout(timer);
      this.#closing.signal.removeEventListener('abort', onClose);
    }
  }
}

/** The requests a purge of `tags` and `urls` takes for `purger`, each within its bounds. */
export function batches(purger: CdnPurger, tags: readonly string[], urls: readonly string[]): PurgeBatch[] {
  const { limits } = purger;
  const tagChunks = limits.tags > 0 ? chunks(tags, limits.tags) : [];
  const urlChunks = limits.urls > 0 ? chunks(urls, limits.urls) : [];
  if (!limits.mixed) return [...tagChunks.map((chunk) => ({ tags: chunk, urls: [] })), ...urlChunks.map((chunk) => ({ tags: [], urls: chunk }))];
  const out: PurgeBatch[] = [];
  for (let i = 0; i < Math.max(tagChunks.length, urlChunks.length); i++) out.push({ tags: tagChunks[i] ?? [], urls: urlChunks[i] ?? [] });
  return out;
}

function chunks(items: readonly string[], size: number): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `work`, or undefined after `ms`, whichever is first. */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
