/** The Koa middleware as an HTTP behaviour target: a Koa 3 app over real loopback HTTP. */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import Koa, { type Context } from 'koa';
import { cache } from '../../runtimes/node-http/koa/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { HttpTarget } from '../http/http-behaviour.ts';
import { listenOnLoopback, runningAt } from '../http/running-target.ts';

/** What a Koa middleware hands to a fetch-style origin: the request it was given, its body streamed. */
export function fetchRequestOf(ctx: Context): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < ctx.req.rawHeaders.length; i += 2) headers.append(ctx.req.rawHeaders[i]!, ctx.req.rawHeaders[i + 1]!);
  const hasBody = ctx.method !== 'GET' && ctx.method !== 'HEAD';
  return new Request(`${ctx.protocol}://${ctx.host}${ctx.originalUrl}`, {
    method: ctx.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(ctx.req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Answers with a fetch Response the Koa way: `ctx.status`, its fields with `ctx.set`, its body as
 * a stream in `ctx.body`. A status outside 100–599 (Koa answers a null body with 204 instead) is
 * written to `ctx.res`, as an app that answers an odd upstream as it came would.
 */
export function sendFetchResponse(ctx: Context, response: Response): void {
  if (response.status < 100 || response.status > 599) {
    ctx.respond = false;
    ctx.res.writeHead(response.status, Object.fromEntries(response.headers));
    ctx.res.end();
    return;
  }
  ctx.status = response.status;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') ctx.set(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) ctx.set('set-cookie', cookies);
  ctx.body = response.body ? Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>) : null;
}

/** A Koa app whose last middleware calls the origin, behind the cache middleware used first. */
export function koaTarget(store: () => Store): HttpTarget {
  return {
    name: 'koa',
    async start(origin, options) {
      const app = new Koa();
      // Origins that fail on purpose (stale-if-error): answered 500 as Koa does, without printing the error.
      app.silent = true;
      const opened = store();
      const middleware = cache({ store: opened, ...options });
      app.use(middleware);
      app.use(async (ctx) => sendFetchResponse(ctx, await origin(fetchRequestOf(ctx))));
      const { base, stop } = await listenOnLoopback(createServer(app.callback()));
      return runningAt(base, opened, middleware, stop);
    },
  };
}
