/**
 * Calls the origin over node:http(s) rather than fetch: fetch would decode Content-Encoding
 * (while keeping the header), refuse to forward Host, and follow redirects — a proxy must
 * pass bytes and headers through as they are.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { isHopByHop } from '../../src/http/index.ts';

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** A fetch-style function that sends every request to `origin`, keeping its path, query, method, headers and body. */
export interface OriginClient {
  (request: Request): Promise<Response>;
  /** Closes the pooled connections. */
  close(): void;
}

/** Creates an {@link OriginClient} for `origin` (e.g. "http://127.0.0.1:8000"). */
export function originClient(origin: string): OriginClient {
  const base = new URL(origin);
  const https = base.protocol === 'https:';
  if (!https && base.protocol !== 'http:') throw new TypeError(`origin must be an http:// or https:// URL, got ${origin}`);
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = https ? httpsRequest : httpRequest;

  const client = (request: Request) => new Promise<Response>((resolve, reject) => {
    const url = new URL(request.url);
    const connection = request.headers.get('connection')?.toLowerCase().split(',').map((s) => s.trim());
    const named = connection ? new Set(connection) : undefined;
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) if (!isHopByHop(name, named)) headers[name] = value;
    const req = send({
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port,
      path: base.pathname.replace(/\/$/, '') + url.pathname + url.search,
      method: request.method,
      headers,
      agent,
    }, (res) => resolve(toResponse(res, request.method)));
    req.on('error', reject);
    if (request.body) Readable.fromWeb(request.body as import('node:stream/web').ReadableStream).on('error', reject).pipe(req);
    else req.end();
  });
  return Object.assign(client, { close: () => agent.destroy() });
}

function toResponse(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode ?? 502;
  const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
  if (empty) res.resume();
  const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage, headers });
}
