import type { ServerResponse } from 'node:http';
import { openHttpCache } from '../../../src/http/exchange/http-cache.ts';
import { controlsOf, type HttpCacheControls } from '../../../src/bindings/controls.ts';
import type { HttpCache, HttpCacheOptions } from '../../../src/http/index.ts';
import { exchange } from '../exchange/exchange.ts';
import { RealResponse } from '../exchange/real-response.ts';
import { refetchCapture, serverOf } from '../exchange/refetch.ts';
import { failResponse } from '../exchange/send-response.ts';
import { expressFetchRequest, type ExpressRequest } from './request.ts';

/** Express's `next`: called with nothing to go on to the next handler, or with an error. */
export type ExpressNext = (error?: unknown) => void;

/** Options of the Express {@link cache} middleware: the HTTP cache's own (`cachette/http`). */
export type ExpressCacheOptions = HttpCacheOptions;

/** The middleware returned by {@link cache}, with the cache's controls. */
export interface ExpressCacheMiddleware extends HttpCacheControls {
  (req: ExpressRequest, res: ServerResponse, next: ExpressNext): void;
}

/**
 * Express middleware (Express 5 and 4; Connect and plain node:http too): an RFC 9111 shared
 * cache for the routes after it.
 *
 * ```ts
 * const app = express();
 * app.use('/api', cache({ store: memoryStore(), ttl: '30s' }));
 * app.get('/api/products', async (req, res) => res.json(await db.products()));
 * ```
 *
 * Each request is translated into a fetch Request (the host as Express sees it, `req.protocol`
 * and `req.originalUrl`, so the key is the URL the client asked for) and
 * answered by the policy in `cachette/http`: stored responses, 304s, HEAD and Vary exactly as
 * every other binding serves them. On a miss the routes after the middleware run once, and
 * what they write (`res.json`, `res.send`, `res.sendFile`, `res.write` streaming, piped
 * streams) is captured rather than sent; the client gets the cache's answer, streamed while
 * it is stored.
 *
 * Stale-while-revalidate needs no second pass through the app: the request that finds the
 * stale response is answered from it at once, and the same pass then runs the routes after
 * the middleware in the background, with the cache's own validators, to store their new
 * response. A route that streams a file (`res.sendFile`, `express.static`) may stop its stream
 * when it sees that request's answer finish: such a revalidation is dropped, never stored half,
 * and the next stale hit tries again. A request the cache must send again (RFC 9111 §4.3.4: a
 * 304 that matches nothing stored) goes through the server once more as a request of its own.
 *
 * Requests that cannot be keyed safely go past the cache untouched: a target in absolute form,
 * a malformed Host, CONNECT, and a target or Host that URL normalisation would change (Express
 * routes on them as sent, the key is normalised: `GET /echo/../home` runs `/echo/*`). Headers set before the middleware ran (CORS, security headers,
 * a session cookie) are this request's own: they are sent with every answer and never stored.
 */
export function cache(options: ExpressCacheOptions): ExpressCacheMiddleware {
  // Checked once, here, where the middleware is created: never per request.
  const policy = openHttpCache(options, { name: 'cache() from cachette/express' });
  const onError = options.onError ?? (() => {});
  const middleware = (req: ExpressRequest, res: ServerResponse, next: ExpressNext): void => {
    // The response as upstream middleware left it: everything the client gets goes through it.
    const real = new RealResponse(res);
    answer(policy, req, real, next).catch((error: unknown) => {
      onError(error);
      failResponse(real, error);
    });
  };
  return Object.assign(middleware, controlsOf(policy));
}

function answer(policy: HttpCache, req: ExpressRequest, real: RealResponse, next: ExpressNext): Promise<void> {
  const again = refetchCapture(req);
  if (again) {
    // A request this middleware sent through the server again: what upstream middleware set
    // on its response is the request's own, and the handlers after it answer uncached.
    again.requestHeaders(real.res.getHeaders());
    next();
    return Promise.resolve();
  }
  const request = expressFetchRequest(req);
  if (!request) {
    next();
    return Promise.resolve();
  }
  return exchange({ policy, req, real, request, proceed: () => next(), reject: (error) => next(error), server: serverOf(req), routedBeforeCache: false });
}
