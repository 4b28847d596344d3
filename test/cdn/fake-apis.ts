/**
 * Local stand-ins for the purge APIs cachette/cdn speaks to, over real HTTP on loopback: each
 * checks the request as its vendor documents it (path, auth, body or Surrogate-Key, per-request
 * bounds) and answers in that vendor's error shape. A test scripts faults ahead of the answers
 * (a 5xx, a 429 with Retry-After, Cloudflare's `success: false`) and reads what arrived.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** performance.now() when it arrived. */
  readonly at: number;
}

/** An answer: status, fields and a JSON body. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A running fake API. */
export interface FakeApi {
  /** Its base URL (`http://127.0.0.1:port`). */
  readonly base: string;
  readonly received: Received[];
  /** Answers used before the API's own, one per request, in order. */
  readonly faults: Answer[];
  close(): Promise<void>;
}

/** Starts a server answering each request with the next fault, else with `answer(request)`. */
export async function fakeApi(answer: (request: Received) => Answer): Promise<FakeApi> {
  const received: Received[] = [];
  const faults: Answer[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const request: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8'), at: performance.now() };
      received.push(request);
      const { status, headers, body } = faults.shift() ?? answer(request);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cloudflareError = (status: number, code: number, message: string): Answer => ({ status, body: { success: false, errors: [{ code, message }], messages: [], result: null } });

/** Cloudflare's zone purge: `POST /client/v4/zones/{zone}/purge_cache`, bearer token, `{ tags }` or `{ files }`, at most 100. */
export function cloudflareApi(zone: string, token: string): Promise<FakeApi> {
  return fakeApi((request) => {
    if (request.method !== 'POST' || request.url !== `/client/v4/zones/${zone}/purge_cache`) return cloudflareError(404, 7003, 'Could not route to the zone');
    if (request.headers.authorization !== `Bearer ${token}`) return cloudflareError(403, 10000, 'Authentication error');
    const body = JSON.parse(request.body) as { tags?: string[]; files?: string[] };
    const items = body.tags ?? body.files;
    if (!Array.isArray(items) || (body.tags && body.files)) return cloudflareError(400, 1012, 'Request must contain one of "purge_everything", "files", "tags", "hosts" or "prefixes"');
    if (items.length > 100) return cloudflareError(400, 1134, 'Too many operations in one request');
    return { status: 200, body: { success: true, errors: [], messages: [], result: { id: zone } } };
  });
}

/** Cloudflare's answer of a 200 that still failed: `success: false` with errors. */
export const CLOUDFLARE_PARTIAL: Answer = { status: 200, body: { success: false, errors: [{ code: 1107, message: 'Purge by tags is not available for this zone' }], messages: [], result: null } };

/** Fastly's batch purge: `POST /service/{id}/purge`, `Fastly-Key`, keys in `Surrogate-Key`, at most 256. */
export function fastlyApi(service: string, token: string): Promise<FakeApi> {
  return fakeApi((request) => {
    if (request.method !== 'POST' || request.url !== `/service/${service}/purge`) return { status: 404, body: { msg: 'Record not found', detail: 'Cannot find service' } };
    if (request.headers['fastly-key'] !== token) return { status: 401, body: { msg: 'Provided credentials are missing or invalid' } };
    const keys = String(request.headers['surrogate-key'] ?? '')
      .split(' ')
      .filter(Boolean);
    if (keys.length === 0 || keys.length > 256) return { status: 400, body: { msg: 'Bad request', detail: 'between 1 and 256 surrogate keys' } };
    return { status: 200, body: Object.fromEntries(keys.map((key, i) => [key, `purge-${i}`])) };
  });
}

/** Vercel's invalidate by tag: `POST /v1/edge-cache/invalidate-by-tags?projectIdOrName=…`, bearer token, `{ tags }`, each at most 256 characters. */
export function vercelApi(project: string, token: string): Promise<FakeApi> {
  return fakeApi((request) => {
    const url = new URL(request.url, 'http://api');
    if (request.method !== 'POST' || url.pathname !== '/v1/edge-cache/invalidate-by-tags') return { status: 404, body: { error: { code: 'not_found', message: 'The requested path was not found' } } };
    if (request.headers.authorization !== `Bearer ${token}`) return { status: 403, body: { error: { code: 'forbidden', message: 'Not authorized' } } };
    if (url.searchParams.get('projectIdOrName') !== project) return { status: 400, body: { error: { code: 'bad_request', message: 'Invalid request: missing projectIdOrName' } } };
    const body = JSON.parse(request.body) as { tags?: unknown };
    if (!Array.isArray(body.tags) || body.tags.some((tag) => typeof tag !== 'string' || tag.length > 256))
      return { status: 400, body: { error: { code: 'bad_request', message: 'Invalid request: tags' } } };
    return { status: 200, body: {} };
  });
}
