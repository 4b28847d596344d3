/** The Express middleware as an HTTP behaviour target: an Express 5 app over real loopback HTTP. */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import express, { type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import { cache } from '../../runtimes/node-http/express/index.ts';
import type { PurgeTarget } from '../../src/http/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { HttpTarget, TestCacheOptions } from '../http/http-behaviour.ts';
import { listenOnLoopback, runningAt } from '../http/running-target.ts';

/** What an Express route hands to a fetch-style origin: the request the handlers were given. */
export function fetchRequestOf(req: ExpressRequest): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`${req.protocol}://${req.host}${req.originalUrl}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Writes a fetch Response through Express's own response API, piping the body as a stream. */
export function sendFetchResponse(res: ExpressResponse, response: Response): void {
  res.status(response.status);
  for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  if (!response.body) {
    res.end();
    return;
  }
  Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>).pipe(res);
}

/** An Express app whose catch-all route calls the origin, behind the cache middleware mounted on every path. */
export function expressTarget(store: () => Store): HttpTarget {
  return {
    name: 'express',
    async start(origin, options: TestCacheOptions) {
      const app = express();
      const opened = store();
      const middleware = cache({ store: opened, ...options });
      app.use(middleware);
      app.all('/{*path}', async (req, res, next) => {
        try {
          sendFetchResponse(res, await origin(fetchRequestOf(req)));
        } catch (error) {
          next(error);
        }
      });
      const { base, stop } = await listenOnLoopback(createServer(app));
      return runningAt(base, opened, middleware, stop);
    },
  };
}
