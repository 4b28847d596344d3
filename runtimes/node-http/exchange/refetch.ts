import type { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ResponseCapture } from './capture.ts';
import { RealResponse } from './real-response.ts';

/** The part of a node:http server a request is dispatched through: its `request` listeners. */
export type RequestServer = Pick<EventEmitter, 'emit' | 'listenerCount'>;

/** Requests this module dispatched, with the capture that keeps each one's response. */
const dispatched = new WeakMap<IncomingMessage, ResponseCapture>();

/**
 * The capture of a request {@link refetch} made, which goes past the cache to the handlers;
 * undefined for every other request. A binding that sees one names the fields its upstream
 * middleware or hooks set ({@link ResponseCapture.requestHeaders}) and lets it through uncached.
 */
export function refetchCapture(req: IncomingMessage): ResponseCapture | undefined {
  return dispatched.get(req);
}

/**
 * Sends `forwarded` through `server` (the one that received `req`) as a new request of its own,
 * and resolves with the response the app writes. It is how a binding calls its origin again
 * once the first pass cannot: the unconditional request RFC 9111 §4.3.4 requires after a 304
 * that matches no stored response (the first pass's handlers have already answered, and a
 * middleware's `next` runs them once), and, where a framework routes before the cache runs
 * and ends the request with the client's answer (Fastify), a stale-while-revalidate refresh.
 * The request has the client's target (as sent, before any mount point or rewrite), no body,
 * and the client's address; cachette bindings let it through uncached. Undefined when there is
 * no server to dispatch through.
 */
export function refetch(server: RequestServer | undefined, req: IncomingMessage & { originalUrl?: string }, forwarded: Request): Promise<Response> | undefined {
  if (!server || server.listenerCount('request') === 0) return undefined;
  const again = new IncomingMessage(detachedSocket(req.socket));
  again.method = forwarded.method;
  again.url = req.originalUrl ?? req.url;
  again.httpVersionMajor = req.httpVersionMajor;
  again.httpVersionMinor = req.httpVersionMinor;
  again.httpVersion = req.httpVersion;
  const rawHeaders: string[] = [];
  for (const [name, value] of forwarded.headers) rawHeaders.push(name, value);
  again.rawHeaders = rawHeaders;
  again.headers = Object.fromEntries(forwarded.headers);
  again.complete = true;
  again.push(null);
  const res = new ServerResponse(again);
  const capture = new ResponseCapture(again, new RealResponse(res), { method: forwarded.method, abandonOnDisconnect: false });
  capture.install();
  dispatched.set(again, capture);
  server.emit('request', again, res);
  return capture.response;
}

/** The server a node:http request came through (Express and Connect apps dispatch on it). */
export function serverOf(req: IncomingMessage): RequestServer | undefined {
  return (req.socket as (Socket & { server?: RequestServer }) | null)?.server;
}

/**
 * A socket that is connected to nothing but answers for the client's: its address and whether
 * it is encrypted (Express's `req.ip` and `req.protocol`, Fastify's `request.ip` and
 * `request.protocol` read them), so that the app sees the same client. Nothing is ever written
 * to it: the capture keeps the response.
 */
function detachedSocket(client: Socket | null): Socket {
  const socket = new Socket();
  for (const field of ['remoteAddress', 'remotePort', 'remoteFamily', 'localAddress', 'localPort', 'encrypted'] as const) {
    const value = (client as unknown as Record<string, unknown> | null)?.[field];
    if (value !== undefined) Object.defineProperty(socket, field, { value });
  }
  return socket;
}
