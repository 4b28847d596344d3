/** The Fastify plugin as an HTTP behaviour target: a Fastify app over real loopback HTTP. */
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cache from '../../runtimes/node-http/fastify/index.ts';
import type { PurgeTarget } from '../../src/http/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { HttpTarget, TestCacheOptions } from '../http/http-behaviour.ts';

/** Makes a Fastify app: Fastify 5's factory, or Fastify 4's (installed as `fastify4`). */
export type FastifyFactory = () => FastifyInstance;

/** What a Fastify route hands to a fetch-style origin: the request the route was given, its body streamed. */
export function fetchRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  const raw = request.raw;
  for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) headers.append(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  // Fastify 5 names the host with its port `host`; Fastify 4 `hostname`.
  const host = (request as { host?: string }).host ?? request.hostname;
  return new Request(`${request.protocol}://${host}${request.originalUrl ?? raw.url}`, {
    method: request.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(raw) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Sends a fetch Response through Fastify's reply: its status and headers, its body as a stream.
 * A status Fastify's `reply.code` refuses (outside 100–599) is written to `reply.raw`, as an app
 * that answers an odd upstream as it came would.
 */
export function sendFetchResponse(reply: FastifyReply, response: Response): FastifyReply {
  if (response.status < 100 || response.status > 599) {
    reply.hijack();
    reply.raw.writeHead(response.status, Object.fromEntries(response.headers));
    reply.raw.end();
    return reply;
  }
  reply.code(response.status);
  for (const [name, value] of response.headers) if (name !== 'set-cookie') reply.header(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  if (!response.body) return reply.send();
  return reply.send(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>));
}

/** A Fastify app whose catch-all route calls the origin, with the cache plugin registered at the root. */
export function fastifyTarget(store: () => Store, make: FastifyFactory = () => Fastify(), name = 'fastify'): HttpTarget {
  return {
    name,
    async start(origin, options: TestCacheOptions) {
      const app = make();
      const opened = store();
      // Any body reaches the origin as it came, whatever its type.
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', (_request, _payload, done) => done(null));
      await app.register(cache, { store: opened, ...options });
      app.all('/*', async (request, reply) => sendFetchResponse(reply, await origin(fetchRequestOf(request))));
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      return {
        // The store the entries live on, for scenarios that plant entries in it.
        store: opened,
        // Redirects are the client's to see, not to follow.
        fetch: (path: string, init?: RequestInit) => fetch(base + path, { redirect: 'manual', ...init }),
        purge: (target: PurgeTarget) => app.cache.purge(target),
        idle: () => app.cache.idle(),
        async close() {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    },
  };
}
