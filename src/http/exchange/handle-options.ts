/** The per-request options every binding passes to the HTTP cache. */
import type { OriginFetch } from './origin-call.ts';

/** The part of a platform's execution context the cache uses (Workers' `ctx`, Hono's `executionCtx`). */
export interface WaitUntilContext {
  /** Keeps the runtime alive until `promise` settles (store writes, background revalidation). */
  waitUntil?(promise: Promise<unknown>): void;
}

/** Per-request options of `HttpCache.handle`. */
export interface HandleOptions extends WaitUntilContext {
  /**
   * Calls the origin again once the response is gone: for a background revalidation
   * (stale-while-revalidate), and for the one retry the cache may need (a 304 or 206 that
   * matches nothing stored, RFC 9111 §4.3.4), and for the rest of a shared body a slow
   * client fell behind on. Defaults to the `origin` given to `handle`. `null` says the origin
   * cannot be called again (a middleware's `next`): stale-while-revalidate then revalidates in
   * the foreground, such a retry is answered 502 (unless the 304 satisfies the client's own
   * validators), and slow clients hold the others back instead of reading on their own.
   */
  revalidate?: OriginFetch | null;
}
