import type { Context, MiddlewareHandler } from 'hono';
import { duringRequest } from '../../cache/background.ts';
import { openHttpCache, type OriginFetch } from '../../http/exchange/http-cache.ts';
import { controlsOf, type HttpCacheControls } from '../controls.ts';
import type { HttpCacheOptions, HttpOptionsCaller } from '../../http/exchange/options.ts';
import { checkOptionsObject } from '../../util/known-options.ts';

/** The part of a Hono app the middleware re-enters for background revalidation. */
export interface RevalidationApp {
  fetch(request: Request, env?: unknown, executionCtx?: unknown): Response | Promise<Response>;
}

/** Options of the Hono {@link cache} middleware: the HTTP cache's options, plus `app`. */
export interface HonoCacheOptions extends HttpCacheOptions {
  /**
   * The app the middleware is mounted on (pass it: `cache({ store, ttl: '30s', app })`). A
   * middleware's `next` can run only once, while the client waits, so every origin call made
   * after the response goes through `app.fetch` instead (the middleware lets such requests
   * through to the handler): the stale-while-revalidate refresh, the full fetch after a 304 or
   * 206 that matches nothing stored, and the rest of a large shared body for a client that fell
   * behind. Without `app`, a stale response within its stale-while-revalidate window is
   * revalidated in the foreground, that mismatched-304 case is answered 502
   * (`Cache-Status: …; detail="validator-mismatch"`), and a slow client holds the others back.
   */
  app?: RevalidationApp;
}

/** How errors name the middleware, and the option it takes besides the HTTP cache's. */
const CALLER: HttpOptionsCaller = { name: 'cache() from cachette/hono', own: ['app'] };

/** The middleware returned by {@link cache}, with the cache's controls. */
export interface HonoCacheMiddleware extends MiddlewareHandler, HttpCacheControls {}

/**
 * Hono middleware: an RFC 9111 shared cache for the routes it is mounted on.
 *
 * ```ts
 * const app = new Hono();
 * app.use('/api/*', cache({ store: memoryStore(), ttl: '30s', app }));
 * ```
 *
 * `ttl` is the freshness of responses that state none (a route that sends no Cache-Control is
 * otherwise never stored); see {@link HonoCacheOptions.app} for why `app` is passed.
 *
 * Works on every runtime Hono runs on; uses `c.executionCtx.waitUntil` where the platform has one,
 * for its own background work and for what `getOrSet` calls in the handlers start (grace
 * refreshes, store writes: see `waitUntil` in the cache's options).
 */
export function cache(options: HonoCacheOptions): HonoCacheMiddleware {
  // Checked once, here, where the middleware is created: never per request.
  checkOptionsObject(options, CALLER.name);
  const { app, ...httpOptions } = options;
  if (app !== undefined && typeof app?.fetch !== 'function') throw new TypeError(`${CALLER.name}: "app" must be a Hono app (an object with fetch)`);
  const policy = openHttpCache(httpOptions, CALLER);
  // Revalidation requests the middleware sent through app.fetch itself: they go straight on.
  const revalidations = new WeakSet<Request>();

  const middleware: MiddlewareHandler = async (c, next) => {
    if (revalidations.has(c.req.raw)) {
      await next();
      return;
    }
    const executionCtx = executionContextOf(c);
    const origin: OriginFetch = async (request) => {
      // The policy may send the origin a different request (its own validators): the
      // handlers downstream read it through c.req.
      const raw = c.req.raw;
      c.req.raw = request;
      try {
        await next();
      } finally {
        c.req.raw = raw;
      }
      return c.res;
    };
    const revalidate: OriginFetch | null = app
      ? async (request) => {
          revalidations.add(request);
          return app.fetch(request, c.env, executionCtx);
        }
      : null;
    const waitUntil = executionCtx && ((promise: Promise<unknown>) => executionCtx.waitUntil(promise));
    const handle = () => policy.handle(c.req.raw, origin, { waitUntil, revalidate });
    // The platform's waitUntil also keeps alive what the handlers' own getOrSet calls start.
    const res = await (waitUntil ? duringRequest(waitUntil, handle) : handle());
    // Clearing first stops Hono from merging the handler's headers (its Set-Cookie, hop-by-hop
    // fields the cache removed) back into the cache's response.
    c.res = undefined;
    c.res = res;
  };

  return Object.assign(middleware, controlsOf(policy));
}

/** Hono's executionCtx getter throws outside Workers-like platforms: there is simply none then. */
function executionContextOf(c: Context): { waitUntil(promise: Promise<unknown>): void } | undefined {
  try {
    const ctx = c.executionCtx;
    return typeof ctx?.waitUntil === 'function' ? ctx : undefined;
  } catch {
    return undefined;
  }
}
