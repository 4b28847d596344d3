import type { Context, Middleware, Next } from 'koa';
import { openHttpCache } from '../../../src/http/exchange/http-cache.ts';
import type { HttpCacheOptions } from '../../../src/http/index.ts';
import { controlsOf, type HttpCacheControls } from '../../../src/bindings/controls.ts';
import { exchange } from '../exchange/exchange.ts';
import { RealResponse } from '../exchange/real-response.ts';
import { refetchCapture, serverOf } from '../exchange/refetch.ts';
import { failResponse } from '../exchange/send-response.ts';
import { koaFetchRequest } from './request.ts';

/** Options of the Koa {@link cache} middleware: the HTTP cache's own (`cachette/http`). */
export type KoaCacheOptions = HttpCacheOptions;

/** The middleware returned by {@link cache}, with the cache's controls. */
export interface KoaCacheMiddleware extends Middleware, HttpCacheControls {}

/**
 * Koa's `app.handleRequest(ctx, fn)`: runs `fn` on the context, then writes `ctx.body` as Koa
 * writes every response (its respond step), or answers an error through `ctx.onerror`.
 */
type HandleRequest = (ctx: Context, fn: (ctx: Context) => Promise<unknown>) => Promise<unknown>;

/**
 * Koa middleware (Koa 3 and 2): an RFC 9111 shared cache for the middleware after it.
 *
 * ```ts
 * const app = new Koa();
 * app.use(cache({ store: memoryStore(), ttl: '30s' }));
 * app.use(async (ctx) => { ctx.body = await db.products(); });
 * ```
 *
 * Each request is translated into a fetch Request (`ctx.protocol`, `ctx.host`, `ctx.originalUrl`)
 * and answered by the policy in `cachette/http`: stored responses (written from their bytes),
 * 304s, HEAD and Vary as every other binding serves them. On a miss the middleware after it runs
 * once, and Koa's own response step writes what it left in `ctx.body` (strings, Buffers, JSON,
 * streams, errors through `ctx.onerror`), captured rather than sent; the client gets the cache's
 * answer, streamed while it is stored. The cache writes that answer itself (`ctx.respond` is
 * false afterwards), so middleware before it that rewrites `ctx.body` after `await next()`
 * (koa-compress) does not see it: mount the cache first, or compress in front of the app.
 *
 * Koa writes a response only once its middleware has unwound, so the middleware after the cache
 * runs in this pass only while the client waits; what it cannot answer then goes through the
 * server as a request of its own (with the client's address and headers, past the cache): a
 * stale-while-revalidate refresh, run after the stale copy was served, and the unconditional
 * request RFC 9111 §4.3.4 requires after a 304 that matches nothing stored. Requests whose target
 * or Host URL normalisation would change are not cached. Headers set before the middleware ran
 * (CORS, security headers) are the request's own: sent with every answer, never stored.
 */
export function cache(options: KoaCacheOptions): KoaCacheMiddleware {
  // Checked once, here, where the middleware is created: never per request.
  const policy = openHttpCache(options, { name: 'cache() from cachette/koa' });
  const onError = options.onError ?? (() => {});
  const middleware: Middleware = async (ctx, next) => {
    const again = refetchCapture(ctx.req);
    if (again) {
      // A request this middleware sent through the server again: what upstream middleware set
      // on its response is the request's own, and the middleware after it answers uncached.
      again.requestHeaders(ctx.res.getHeaders());
      return next();
    }
    const request = koaFetchRequest(ctx);
    if (!request) return next();
    // The response as upstream middleware left it: everything the client gets goes through it.
    const real = new RealResponse(ctx.res);
    let rejected: { error: unknown } | undefined;
    try {
      await exchange({
        policy,
        req: ctx.req,
        real,
        request,
        proceed: () => void runRest(ctx, next),
        reject: (error) => (rejected = { error }),
        server: serverOf(ctx.req),
        routedBeforeCache: true,
      });
    } catch (error) {
      onError(error);
      failResponse(real, error);
    }
    // An error met before any handler ran (a strict engine's store error) is Koa's to answer.
    if (rejected) throw rejected.error;
    // The answer is written: Koa's own response step has nothing left to send.
    ctx.respond = false;
  };
  return Object.assign(middleware, controlsOf(policy));
}

/** Runs the middleware after the cache and Koa's response step, into the capture the exchange installed. */
function runRest(ctx: Context, next: Next): Promise<unknown> {
  const handleRequest = (ctx.app as unknown as { handleRequest: HandleRequest }).handleRequest;
  return handleRequest.call(ctx.app, ctx, () => next());
}
