import type { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ResponseCapture } from './capture.ts';
import { RealResponse } from './real-response.ts';
import type { ExpressRequest } from './request.ts';

/** Requests this module dispatched: every cachette middleware lets them straight through. */
const dispatched = new WeakSet<IncomingMessage>();

/** True for a request {@link refetch} made: it goes past the cache to the handlers. */
export function isRefetch(req: IncomingMessage): boolean {
  return dispatched.has(req);
}

/**
 * Sends `forwarded` through the server that received `req` once more, as a new request of its
 * own, and resolves with the response the app writes. It is the unconditional request RFC 9111
 * §4.3.4 requires after a 304 that matches no stored response: the first pass's handlers have
 * already answered, and a middleware's `next` runs them once. The request has no body and
 * carries the client's address; cachette middleware let it through uncached. Undefined when
 * `req` did not come through a node:http server's `request` event.
 */
export function refetch(req: ExpressRequest, forwarded: Request): Promise<Response> | undefined {
  const server = (req.socket as (Socket & { server?: EventEmitter }) | null)?.server;
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
  dispatched.add(again);
  server.emit('request', again, res);
  return capture.response;
}

/**
 * A socket that is connected to nothing but answers for the client's: its address and whether
 * it is encrypted (Express's `req.ip` and `req.protocol` read them), so that the app sees the
 * same client. Nothing is ever written to it: the capture keeps the response.
 */
function detachedSocket(client: Socket | null): Socket {
  const socket = new Socket();
  for (const field of ['remoteAddress', 'remotePort', 'remoteFamily', 'localAddress', 'localPort', 'encrypted'] as const) {
    const value = (client as unknown as Record<string, unknown> | null)?.[field];
    if (value !== undefined) Object.defineProperty(socket, field, { value });
  }
  return socket;
}
