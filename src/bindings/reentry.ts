/**
 * What the fetch-native bindings whose middleware runs the handlers through a one-shot `next`
 * (h3, Elysia) share: the client's request answered by the policy, every origin call after the
 * response sent through the app's own `fetch` again, and those requests let past the cache.
 */
import { duringRequest, type WaitUntil } from '../cache/background.ts';
import type { HttpCache, OriginFetch } from '../http/exchange/http-cache.ts';

/** The part of an app a binding re-enters for an origin call its `next` cannot make. */
export interface FetchApp {
  fetch(request: Request): Response | Promise<Response>;
}

/** One request for {@link Reentry.answer}. */
export interface ReentryCall {
  /** Runs the handlers once, in this pass, for the request the policy sends (its own validators, a GET). */
  origin: OriginFetch;
  /** The app to send later origin calls through; none: they are made in the foreground or refused (see `revalidate`). */
  app: FetchApp | undefined;
  /** The platform's, where the request has one: keeps background work alive past the response. */
  waitUntil: WaitUntil | undefined;
}

/**
 * The requests a binding sent through its app itself, and how a request is answered. A
 * middleware's `next` can run only once, while the client waits, so every origin call made
 * after the response goes through `app.fetch` (the stale-while-revalidate refresh, the full
 * fetch after a 304 that matches nothing stored, the rest of a shared body for a client that
 * fell behind), and the binding lets those requests through to the handlers.
 */
export class Reentry {
  readonly #sent = new WeakSet<Request>();

  constructor(readonly policy: HttpCache) {}

  /** True for a request this binding sent through its app: it goes straight to the handlers. */
  sent(request: Request): boolean {
    return this.#sent.has(request);
  }

  /** Sends `request` through `app` as a request of its own, which this binding lets past the cache. */
  async through(app: FetchApp, request: Request): Promise<Response> {
    this.#sent.add(request);
    return app.fetch(request);
  }

  /** Answers `request` through the policy; background work started meanwhile goes to `waitUntil`. */
  answer(request: Request, call: ReentryCall): Promise<Response> {
    const app = call.app;
    const revalidate: OriginFetch | null = app ? (forwarded) => this.through(app, forwarded) : null;
    const handle = () => this.policy.handle(request, call.origin, { waitUntil: call.waitUntil, revalidate });
    // The platform's waitUntil also keeps alive what the handlers' own getOrSet calls start.
    return call.waitUntil ? duringRequest(call.waitUntil, handle) : handle();
  }
}
