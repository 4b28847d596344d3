/**
 * A caching reverse proxy: node:http (through @hono/node-server) in front of any origin, with
 * the cache from cachette/http between the two.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { httpCache, type CachedHandler, type HttpCacheOptions } from '../../src/http/index.ts';
import type { Store } from '../../src/index.ts';
import { originClient } from './origin-client.ts';

/** Options of {@link startProxy}: where the origin is, where to listen, and the cache's options. */
export interface ProxyOptions extends Omit<HttpCacheOptions, 'store' | 'cache'> {
  /** The origin's base URL, e.g. "http://127.0.0.1:8000". */
  origin: string;
  /** Where the cache keeps responses. The proxy does not close it. */
  store: Store;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1. */
  host?: string;
}

/** A running proxy. */
export interface RunningProxy {
  /** The proxy's base URL. */
  url: string;
  port: number;
  /** The cached handler (purge, idle). */
  handler: CachedHandler;
  /** Stops listening, drops connections and waits for background cache work. */
  close(): Promise<void>;
}

/** Starts the proxy and resolves once it listens. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const { origin, port = 0, host = '127.0.0.1', ...cacheOptions } = options;
  const client = originClient(origin);
  const handler = httpCache(async (request) => {
    try {
      return await client(request);
    } catch {
      // An unreachable origin is a 502, which stale-if-error may still answer with a stored copy.
      return new Response('Bad Gateway: the origin did not answer\n', { status: 502, headers: { 'content-type': 'text/plain' } });
    }
  }, cacheOptions);
  let server!: Server;
  const info = await new Promise<AddressInfo>((resolve) => {
    server = serve({ fetch: (request) => handler(request), port, hostname: host }, resolve) as Server;
  });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`,
    port: info.port,
    handler,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await handler.close();
      client.close();
    },
  };
}
