import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { routedUrl } from '../../src/http/request-target.ts';

/** The parts of an Express (or Connect, or plain node:http) request the middleware reads. */
export interface ExpressRequest extends IncomingMessage {
  /** The path as the client sent it, before any mount point was stripped (Express, Connect). */
  originalUrl?: string;
  /** "http" or "https", honouring Express's `trust proxy` setting. */
  protocol?: string;
  /** The host with its port, honouring Express's `trust proxy` setting (Express 5). */
  host?: string;
  /** The host without its port, honouring `trust proxy` (Express 4 and 5). */
  hostname?: string;
}

/** `host[:port]`: a registered name, an IPv4 address or a bracketed IPv6 address (RFC 3986 §3.2.2). */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]+)(?::\d{1,5})?$/;

/**
 * The fetch Request the cache policy sees for `req`: method, absolute URL (the path before any
 * mount point was stripped) and every header, without a body (the handlers read the body from
 * `req` itself). Undefined when the request cannot be keyed safely: a request target in absolute
 * or asterisk form, a missing or malformed host, a target or host that URL normalisation would
 * change (Express routes on them as sent: see request-target.ts), a method fetch refuses
 * (CONNECT, TRACE) or a header fetch refuses. Such requests go past the cache untouched.
 */
export function toFetchRequest(req: ExpressRequest): Request | undefined {
  const path = req.originalUrl ?? req.url;
  if (typeof path !== 'string') return undefined;
  const host = hostOf(req);
  if (host === undefined || !HOST.test(host)) return undefined;
  const protocol = req.protocol ?? ((req.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http');
  if (protocol !== 'http' && protocol !== 'https') return undefined;
  const url = routedUrl(protocol, host, path);
  if (url === undefined) return undefined;
  try {
    const headers = new Headers();
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!;
      if (!name.startsWith(':')) headers.append(name, raw[i + 1]!);
    }
    return new Request(url, { method: req.method ?? 'GET', headers });
  } catch {
    return undefined;
  }
}

/** What {@link applyForwarded} changed, to put back once the handlers are done. */
export interface SavedRequest {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
}

/**
 * Makes `req` say what the cache sends the handlers: the policy may change the method (a
 * revalidation is a GET) and the validators (its own instead of the client's). Returns what to
 * restore afterwards, or undefined when nothing changed.
 */
export function applyForwarded(req: IncomingMessage, client: Request, forwarded: Request): SavedRequest | undefined {
  const changed = new Map<string, string | undefined>();
  for (const [name] of client.headers) if (!forwarded.headers.has(name)) changed.set(name, undefined);
  for (const [name, value] of forwarded.headers) if (client.headers.get(name) !== value) changed.set(name, value);
  if (changed.size === 0 && forwarded.method === client.method) return undefined;
  const saved: SavedRequest = { method: req.method, headers: req.headers, rawHeaders: req.rawHeaders };
  const headers: IncomingHttpHeaders = { ...req.headers };
  const rawHeaders: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (!changed.has(req.rawHeaders[i]!.toLowerCase())) rawHeaders.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  for (const [name, value] of changed) {
    if (value === undefined) {
      delete headers[name];
    } else {
      headers[name] = value;
      rawHeaders.push(name, value);
    }
  }
  req.method = forwarded.method;
  req.headers = headers;
  req.rawHeaders = rawHeaders;
  return saved;
}

/** Puts back what {@link applyForwarded} changed. */
export function restoreRequest(req: IncomingMessage, saved: SavedRequest | undefined): void {
  if (!saved) return;
  req.method = saved.method;
  req.headers = saved.headers;
  req.rawHeaders = saved.rawHeaders;
}

/**
 * The host the app sees: Express 5's `req.host` (with the port, honouring `trust proxy`); on
 * Express 4, whose `req.host` is deprecated and drops the port, the Host header, unless
 * `req.hostname` names another host (a trusted X-Forwarded-Host); elsewhere the Host header.
 */
function hostOf(req: ExpressRequest): string | undefined {
  const header = firstValue(req.headers.host ?? req.headers[':authority']);
  // Express 4 still has req.param(), which Express 5 removed.
  if (typeof (req as { param?: unknown }).param !== 'function') return typeof req.host === 'string' ? req.host : header;
  const hostname = req.hostname;
  if (typeof hostname === 'string' && hostname !== '' && (header === undefined || withoutPort(header) !== hostname)) return hostname;
  return header;
}

/** `host[:port]` without the port; a bracketed IPv6 address keeps its brackets. */
function withoutPort(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  return colon === -1 ? host : host.slice(0, colon);
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
