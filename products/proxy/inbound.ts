/**
 * From a client's request on the wire to the request the cache keys and the origin receives.
 *
 * The cache and the origin must see the same request: the key comes from the URL built here,
 * and the origin gets exactly that authority as `Host`, that path and query, and these
 * headers. So everything a client could make the two disagree on is settled once, here:
 *
 * - Framing. Node's parser already answers 400 to a conflicting Content-Length and
 *   Transfer-Encoding, to differing Content-Lengths and to a Transfer-Encoding that does not end
 *   in chunked. A GET or HEAD that carries a body is refused too: a fetch Request cannot hold
 *   it, the key would not cover it, and forwarding its Content-Length without the bytes would
 *   desynchronise the origin connection (request smuggling).
 * - Authority. In absolute form (`GET http://host/x`) the target's authority wins and `Host`
 *   is ignored (RFC 9112 §3.2.2); otherwise `Host` must be one well-formed authority. Either is
 *   normalised once (case, default or leading-zero port) and that normal form is what is keyed
 *   and what the origin receives.
 * - Headers. Hop-by-hop fields (and those `Connection` names), `Expect` (Node has answered it)
 *   and the client's forwarding fields (the whole family, but for the keyed ones when trusted)
 *   are removed; the proxy's own forwarding fields are set (forwarding-headers.ts).
 */
import type { IncomingMessage } from 'node:http';
import { isHopByHop } from '../../src/http/rules/headers.ts';
import { isDroppedForwardingField, setForwardingFields } from './forwarding-headers.ts';
import { readableToWeb } from './readable-stream.ts';

/** How inbound requests are read. */
export interface InboundOptions {
  /** Keep the client's forwarding fields (see forwarding-headers.ts). */
  trustForwarded: boolean;
  /** The proxy's `Via` entry. */
  via: string;
}

/** A request the proxy accepted, before its body is touched. */
export interface Inbound {
  ok: true;
  method: string;
  /** The URL the cache keys on: `http://` + normalised authority + path and query. */
  url: URL;
  /** The headers the origin will receive (Host included). */
  headers: Headers;
  /** True when the request carries a body (Content-Length above 0, or Transfer-Encoding). */
  hasBody: boolean;
}

/** A request the proxy refuses before it reaches the cache; the connection is closed after the answer. */
export interface Refused {
  ok: false;
  status: number;
  message: string;
}

// A host is an IP literal in brackets, or a name of unreserved characters; an optional port.
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~]+)(?::[0-9]{0,5})?$/;
const BODILESS_METHODS = new Set(['GET', 'HEAD']);
// fetch refuses these methods; TRACE through a cache would also echo one client's headers to another.
const UNSUPPORTED_METHODS = new Set(['TRACE', 'TRACK', 'CONNECT']);

/** Validates and normalises `incoming`; never reads its body. */
export function readInbound(incoming: IncomingMessage, options: InboundOptions): Inbound | Refused {
  const method = incoming.method ?? 'GET';
  if (UNSUPPORTED_METHODS.has(method)) return refuse(405, `the proxy does not forward ${method} requests`);
  const url = targetUrl(incoming);
  if (typeof url === 'string') return refuse(400, url);

  const declared = incoming.headers['content-length'];
  const chunked = incoming.headers['transfer-encoding'] !== undefined;
  // Node's parser has refused both together; checked again so that this module stands alone.
  if (declared !== undefined && chunked) return refuse(400, 'a request may not carry both Content-Length and Transfer-Encoding');
  const hasBody = chunked || (declared !== undefined && Number(declared) > 0);
  if (hasBody && BODILESS_METHODS.has(method)) return refuse(400, `a ${method} request may not carry a body through the proxy`);

  const headers = forwardedHeaders(incoming.rawHeaders, options.trustForwarded);
  headers.set('host', url.host);
  if (hasBody && declared !== undefined) headers.set('content-length', declared);
  setForwardingFields(headers, {
    clientAddress: incoming.socket.remoteAddress,
    host: url.host,
    proto: 'http',
    via: options.via,
    trusted: options.trustForwarded,
  });
  return { ok: true, method, url, headers, hasBody };
}

/** The fetch Request for an accepted inbound request; its body streams from `incoming` on demand. */
export function toRequest(inbound: Inbound, incoming: IncomingMessage): Request {
  const body = inbound.hasBody ? readableToWeb(incoming, { prematureCloseError: () => new Error('the client closed the connection before the request body ended'), onCancel: 'drain' }) : null;
  return new Request(inbound.url, { method: inbound.method, headers: inbound.headers, body, duplex: 'half' } as RequestInit);
}

/** The URL a request is keyed under, or why the target or authority is refused. */
function targetUrl(incoming: IncomingMessage): URL | string {
  const target = incoming.url ?? '';
  let authority: string;
  let pathAndQuery: string;
  if (target.startsWith('/')) {
    const hosts = countHostFields(incoming.rawHeaders);
    if (hosts !== 1) return hosts === 0 ? 'the request has no Host header' : 'the request has more than one Host header';
    authority = incoming.headers.host ?? '';
    pathAndQuery = target;
  } else if (/^https?:\/\//i.test(target)) {
    if (!/^http:/i.test(target)) return 'an absolute-form target must use http:, the scheme the proxy listens with';
    const rest = target.slice('http://'.length);
    const end = rest.search(/[/?#]/);
    authority = end === -1 ? rest : rest.slice(0, end);
    pathAndQuery = end === -1 ? '/' : rest.slice(end);
    if (!pathAndQuery.startsWith('/')) pathAndQuery = `/${pathAndQuery}`;
  } else {
    return `the request target ${JSON.stringify(target.slice(0, 100))} is neither a path nor an http:// URL`;
  }
  if (!AUTHORITY.test(authority)) return `the authority ${JSON.stringify(authority.slice(0, 100))} is not a valid host[:port]`;
  try {
    // Concatenated, never resolved against a base: a path such as //evil.example/x stays a path.
    return new URL(`http://${authority}${pathAndQuery}`);
  } catch {
    return `the authority ${JSON.stringify(authority.slice(0, 100))} is not a valid host[:port]`;
  }
}

/** The client's headers minus what never crosses the proxy (see the module comment). */
function forwardedHeaders(raw: readonly string[], trustForwarded: boolean): Headers {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue;
    for (const name of raw[i + 1]!.split(',')) if (name.trim()) named.add(name.trim().toLowerCase());
  }
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'host' || name === 'content-length' || name === 'expect' || isHopByHop(name, named)) continue;
    if (isDroppedForwardingField(name, trustForwarded)) continue;
    headers.append(name, raw[i + 1]!);
  }
  return headers;
}

function countHostFields(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') count++;
  return count;
}

function refuse(status: number, message: string): Refused {
  return { ok: false, status, message };
}
