/**
 * A node:http request as the fetch Request the cache policy sees, and the request the handlers
 * are given when the policy forwards another one (its own validators, a GET for a HEAD).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { routedUrl } from '../../../src/http/rules/request-target.ts';

/** Where a request is routed: what the framework sees of it, honouring its proxy settings. */
export interface RoutedTarget {
  /** The scheme the framework sees ("http" or "https"; anything else is not keyed). */
  protocol: string | undefined;
  /** `host[:port]` as the framework sees it (the Host header, or a trusted X-Forwarded-Host). */
  host: string | undefined;
  /** The request target as the client sent it, before any mount point was stripped or rewrite applied. */
  target: string | undefined;
}

/** `host[:port]`: a registered name, an IPv4 address or a bracketed IPv6 address (RFC 3986 §3.2.2). */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]+)(?::\d{1,5})?$/;

/**
 * The fetch Request the cache policy sees for `req`: method, the absolute URL of `where` and
 * every header, without a body (the handlers read the body from `req` itself). Undefined when
 * the request cannot be keyed safely: a request target in absolute or asterisk form, a missing
 * or malformed host, a target or host that URL normalisation would change (the frameworks route
 * on them as sent: see request-target.ts), a method fetch refuses (CONNECT, TRACE) or a header
 * fetch refuses. Such requests go past the cache untouched.
 */
export function toFetchRequest(req: IncomingMessage, where: RoutedTarget): Request | undefined {
  const { protocol, host, target } = where;
  if (typeof target !== 'string') return undefined;
  if (typeof host !== 'string' || !HOST.test(host)) return undefined;
  if (protocol !== 'http' && protocol !== 'https') return undefined;
  const url = routedUrl(protocol, host, target);
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
