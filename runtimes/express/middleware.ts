import { OutgoingMessage, type ServerResponse } from 'node:http';
import { openHttpCache } from '../../src/http/http-cache.ts';
import type { BytesAnswer, HttpCache, HttpCacheOptions, PurgeTarget } from '../../src/http/index.ts';
import { ResponseCapture } from './capture.ts';
import { RealResponse } from './real-response.ts';
import { applyForwarded, restoreRequest, toFetchRequest, type ExpressRequest } from './request.ts';
import { isRefetch, refetch } from './retry.ts';
import { sendBytes, sendResponse } from './send-response.ts';

/** Express's `next`: called with nothing to go on to the next handler, or with an error. */
export type ExpressNext = (error?: unknown) => void;

/** Options of the Express {@link cache} middleware: the HTTP cache's own (`cachette/http`). */
export type ExpressCacheOptions = HttpCacheOptions;

/** The middleware returned by {@link cache}, with the cache's controls. */
export interface ExpressCacheMiddleware {
  (req: ExpressRequest, res: ServerResponse, next: ExpressNext): void;
  /** Deletes the responses stored for a URL (every variant) or carrying a tag. */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background store writes and revalidations have settled. */
  idle(): Promise<void>;
  /** Waits for background work, then closes the engine the middleware opened (never a store or cache you passed in). */
  close(): Promise<void>;
  /** The policy object behind the middleware. */
  readonly httpCache: HttpCache;
}

const realHeadersSent = Object.getOwnPropertyDescriptor(OutgoingMessage.prototype, 'headersSent')!.get!;

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
      fail(real, error);
    });
  };
  return Object.assign(middleware, {
    purge: (target: PurgeTarget) => policy.purge(target),
    idle: () => policy.idle(),
    close: () => policy.close(),
    httpCache: policy,
  });
}

async function answer(policy: HttpCache, req: ExpressRequest, real: RealResponse, next: ExpressNext): Promise<void> {
  const request = isRefetch(req) ? undefined : toFetchRequest(req);
  if (!request) {
    next();
    return;
  }
  let capture: ResponseCapture | undefined;
  let background = false;
  // The handlers after the middleware run at most once per request: `next` cannot be called
  // twice. The one retry the policy may need goes through the server as a request of its own.
  const runHandlers = (forwarded: Request, inBackground: boolean): Promise<Response> => {
    if (capture) return refetch(req, forwarded) ?? Promise.resolve(cannotRetry());
    background = inBackground;
    const saved = applyForwarded(req, request, forwarded);
    capture = new ResponseCapture(req, real, { method: forwarded.method, abandonOnDisconnect: !inBackground });
    capture.install();
    void capture.settled.then(() => restoreRequest(req, saved));
    next();
    return capture.response;
  };
  let response: Response | BytesAnswer;
  try {
    // A hit comes as bytes, written as they are: no fetch Response is built for it.
    response = await policy.handleBytes(request, (forwarded) => runHandlers(forwarded, false), { revalidate: (forwarded) => runHandlers(forwarded, true) });
  } catch (error) {
    // Before the handlers ran (a strict engine's store error), Express's error handling takes it.
    if (!capture) {
      next(error);
      return;
    }
    throw error;
  }
  if (response instanceof Response) await sendResponse(real, response, { keepHandlerStatus: background });
  else sendBytes(real, response, { keepHandlerStatus: background });
}

/**
 * The answer when the retry RFC 9111 §4.3.4 asks for (after a 304 that matches no stored
 * response) is impossible: the handlers already ran in this request, and there is no server to
 * send a new request through.
 */
function cannotRetry(): Response {
  return new Response("Bad Gateway: the handler answered the cache's conditional request with a 304 that matches no stored response\n", {
    status: 502,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
}

/** Nothing may be left hanging: a 502 when nothing was sent yet, else the connection is closed. */
function fail(real: RealResponse, error: unknown): void {
  const res = real.res;
  if (res.destroyed) return;
  if (realHeadersSent.call(res)) {
    res.destroy(error instanceof Error ? error : undefined);
    return;
  }
  real.call('writeHead', 502, { 'content-type': 'text/plain; charset=utf-8' });
  real.call('end', 'Bad Gateway: the cache could not answer\n');
}
