/**
 * The caching reverse proxy: a node:http server in front of any origin, with cachette's
 * shared HTTP cache between the two. It owns both of its HTTP edges — the request it reads
 * (inbound.ts) and the one it sends (origin-client.ts) — so that what is keyed and what the
 * origin receives are one and the same request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { openHttpCache } from '../../src/http/exchange/http-cache.ts';
import type { HttpCache, PurgeTarget } from '../../src/http/index.ts';
import { closeServer, listen, serverUrl } from '../shared/listen.ts';
import { varyOnTrustedFields } from './forwarding-headers.ts';
import { HeldBytes, type HeldStats } from './held-bytes.ts';
import { readInbound, toRequest } from './inbound.ts';
import { interimRelay } from './interim.ts';
import { PROXY_OPTIONS, resolveProxyOptions, type ProxyOptions } from './options.ts';
import { OriginError, originClient, type InterimResponse } from './origin-client.ts';
import { purgeEndpoint, type PurgeEndpoint } from './purge-endpoint.ts';
import { textResponse, writeBytes, writeResponse } from './write-response.ts';

/** A running proxy. */
export interface RunningProxy {
  /** The proxy's base URL, e.g. "http://127.0.0.1:8082". */
  readonly url: string;
  /** The port listened on. */
  readonly port: number;
  /** The cache policy in front of the origin (its `cache.events` report store errors). */
  readonly cache: HttpCache;
  /** Deletes the responses stored for a URL (every variant) or carrying a tag; resolves how many entries existed. */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background cache work (store writes, revalidations) has settled. */
  idle(): Promise<void>;
  /**
   * The bytes of response bodies held for clients that have not taken them yet (distinct
   * bytes, all connections; bounded by `maxHeldBytes`), and how many connections were closed
   * because their client took nothing (past that bound, or for `writeTimeout`).
   */
  held(): HeldStats;
  /** Stops listening, drops connections, waits for background cache work and closes the origin connections. */
  close(): Promise<void>;
}

/** How errors name the proxy, and the options it takes besides the HTTP cache's. */
const PROXY_CALLER = { name: 'startProxy()', own: PROXY_OPTIONS };

/** Starts the proxy and resolves once it listens. Options are validated first: a bad one throws before anything starts. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const resolved = resolveProxyOptions(options);
  const cache = openHttpCache(resolved.cache, PROXY_CALLER);
  let purge: PurgeEndpoint | undefined;
  try {
    purge = resolved.purge === undefined ? undefined : purgeEndpoint(resolved.purge, cache);
  } catch (error) {
    await cache.close();
    throw error;
  }
  const origin = originClient(resolved.origin);
  const held = new HeldBytes({ maxBytes: resolved.maxHeldBytes, writeTimeoutMs: resolved.writeTimeoutMs });
  const via = `1.1 ${resolved.cache.name ?? 'cachette'}`;
  const onError = resolved.cache.onError ?? (() => {});

  /**
   * Calls the origin; its failures become the 502 they stand for, so that stale-if-error can
   * answer them. Timeouts are the cache's (it aborts `request.signal`, and that rejection is
   * its own to handle). `onInterim` relays 1xx responses to the waiting client, when there is one.
   */
  const forward = async (request: Request, onInterim?: (interim: InterimResponse) => void): Promise<Response> => {
    let response: Response;
    try {
      response = await origin.send(request, onInterim === undefined ? {} : { onInterim });
    } catch (error) {
      if (!(error instanceof OriginError)) throw error;
      return textResponse(502, `Bad Gateway: ${error.message}`);
    }
    // In place: the origin client's headers are its own, and a status HTTP does not define
    // (which the cache answers 502) could not be put on a new Response.
    if (resolved.trustForwarded) varyOnTrustedFields(response.headers);
    return response;
  };
  const revalidate = (request: Request) => forward(request);

  async function answer(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const inbound = readInbound(incoming, { trustForwarded: resolved.trustForwarded, via });
    if (!inbound.ok) {
      // The connection's framing may be in doubt (a body nobody will read): it ends here.
      return writeResponse(outgoing, textResponse(inbound.status, `${inbound.status === 405 ? 'Method Not Allowed' : 'Bad Request'}: ${inbound.message}`), incoming.method ?? 'GET', held, {
        close: true,
      });
    }
    if (purge?.handles(inbound)) return writeResponse(outgoing, await purge.handle(inbound, incoming), inbound.method, held);
    const onInterim = interimRelay(incoming, outgoing);
    // A hit comes as bytes, written as they are: no fetch Response is built for it.
    const answer = await cache.handleBytes(toRequest(inbound, incoming), (request) => forward(request, onInterim), { revalidate });
    if (answer instanceof Response) await writeResponse(outgoing, answer, inbound.method, held);
    else writeBytes(outgoing, answer, held);
  }

  const server = createServer((incoming, outgoing) => {
    answer(incoming, outgoing).catch((error: unknown) => {
      // Not the origin (its failures are answers already) but the proxy itself: say so without details.
      onError(error);
      if (outgoing.headersSent) outgoing.destroy();
      else void writeResponse(outgoing, textResponse(500, 'Internal Server Error: the proxy failed to answer'), 'GET', held);
    });
  });
  let port: number;
  try {
    port = await listen(server, resolved.port, resolved.host);
  } catch (error) {
    origin.close();
    await cache.close();
    throw error;
  }
  return {
    url: serverUrl(resolved.host, port),
    port,
    cache,
    purge: (target) => cache.purge(target),
    idle: () => cache.idle(),
    held: () => held.stats(),
    async close() {
      await closeServer(server);
      await cache.close();
      origin.close();
    },
  };
}
