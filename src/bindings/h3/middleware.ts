import { toResponse, type H3Event, type Middleware } from 'h3';
import { openHttpCache } from '../../http/exchange/http-cache.ts';
import type { HttpCacheOptions } from '../../http/exchange/options.ts';
import { controlsOf, type HttpCacheControls } from '../controls.ts';
import { Reentry } from '../reentry.ts';

/** Options of the h3 {@link cache} middleware: the HTTP cache's own (`cachette/http`). */
export type H3CacheOptions = HttpCacheOptions;

/** The middleware returned by {@link cache}, with the cache's controls. */
export interface H3CacheMiddleware extends Middleware, HttpCacheControls {}

/**
 * h3 (v2) middleware: an RFC 9111 shared cache for the routes it is used on.
 *
 * ```ts
 * const app = new H3();
 * app.use('/api/**', cache({ store: memoryStore(), ttl: '30s' }));
 * app.get('/api/products', () => db.products());
 * ```
 *
 * h3 v2 hands its handlers a fetch `Request` (`event.req`) and turns what they return into a
 * fetch Response, so the middleware is runtime-neutral: the policy in `cachette/http` answers
 * `event.req` (stored responses, 304s, HEAD and Vary as every other binding serves them), and on
 * a miss the handlers after it run once and their result becomes the response stored, as h3
 * would send it (`toResponse`: JSON, text, streams, errors and the app's `onError`). A
 * middleware's `next` runs once, while the client waits, so every origin call made after the
 * response (the stale-while-revalidate refresh, the full fetch after a 304 that matches nothing
 * stored) goes through `event.app.fetch` as a request of its own, which the middleware lets
 * through. Response headers set before the middleware ran (CORS, a session cookie) are the
 * request's own: sent with every answer under the answer's own fields, never stored.
 */
export function cache(options: H3CacheOptions): H3CacheMiddleware {
  // Checked once, here, where the middleware is created: never per request.
  const reentry = new Reentry(openHttpCache(options, { name: 'cache() from cachette/h3' }));
  const middleware: Middleware = async (event, next) => {
    if (reentry.sent(event.req)) return next();
    const own = takeResponseFields(event);
    const origin = async (request: Request): Promise<Response> => {
      // The policy may send the handlers another request (its own validators): they read it as event.req.
      const raw = event.req;
      setRequest(event, request);
      try {
        return await toResponse(
          new Promise((resolve) => resolve(next())),
          event,
          // The app's onResponse runs once, on the answer h3 sends, not on the response stored.
          { ...event.app?.config, onResponse: undefined },
        );
      } finally {
        setRequest(event, raw);
      }
    };
    const app = event.app;
    const answer = await reentry.answer(event.req, {
      origin,
      app: app && { fetch: (request) => app.fetch(request) },
      waitUntil: typeof event.req.waitUntil === 'function' ? (promise) => event.waitUntil(promise) : undefined,
    });
    return withFields(answer, own);
  };
  return Object.assign(middleware, controlsOf(reentry.policy));
}

/** `event.req` is read-only in h3's types; the middleware swaps it for the handlers' pass only. */
function setRequest(event: H3Event, request: Request): void {
  (event as { req: Request }).req = request;
}

/**
 * The response fields set before the middleware ran, taken off the event so that they are not
 * stored with the handlers' response (h3 merges `event.res.headers` into what a handler returns).
 */
function takeResponseFields(event: H3Event): Headers {
  const fields = new Headers(event.res.headers);
  for (const name of [...fields.keys()]) event.res.headers.delete(name);
  return fields;
}

/** The answer with `own` fields under its own (the answer's win; Set-Cookie adds). */
function withFields(answer: Response, own: Headers): Response {
  if (own.keys().next().done) return answer;
  const headers = new Headers(own);
  for (const [name, value] of answer.headers) if (name !== 'set-cookie') headers.set(name, value);
  for (const cookie of answer.headers.getSetCookie()) headers.append('set-cookie', cookie);
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}
