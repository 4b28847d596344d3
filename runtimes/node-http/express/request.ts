import type { IncomingMessage } from 'node:http';
import { toFetchRequest } from '../exchange/fetch-request.ts';

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

/**
 * The fetch Request the cache policy sees for an Express request: the host as Express sees it,
 * `req.protocol` and the path before any mount point was stripped (`req.originalUrl`), so the
 * key is the URL the client asked for. Undefined when it cannot be keyed safely (see
 * toFetchRequest): such requests go past the cache untouched.
 */
export function expressFetchRequest(req: ExpressRequest): Request | undefined {
  const protocol = req.protocol ?? ((req.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http');
  return toFetchRequest(req, { protocol, host: hostOf(req), target: req.originalUrl ?? req.url });
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
