/**
 * Calls the origin over node:http(s) rather than fetch: fetch would decode Content-Encoding
 * (while keeping the header), refuse to forward Host, follow redirects and hide interim
 * responses — a proxy must pass bytes, headers and 1xx responses through as they are.
 *
 * Framing is never left to doubt. A request body is sent with the length the client declared
 * and checked against it, or chunked; a connection whose exchange did not end cleanly (an
 * error, a timeout, a body nobody read to its end) is destroyed, never handed back to the
 * pool, so a half-read message can never be taken for the start of the next one.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isHopByHop } from '../../../src/http/headers.ts';
import { pump } from './pump.ts';
import { readableToWeb } from './readable-stream.ts';

/** Timeouts of the origin client, ms. */
export interface OriginTimeouts {
  /** From sending the request until the final response's headers (connecting included). */
  headersMs: number;
  /** Longest wait for the next body bytes while a reader wants them. */
  bodyIdleMs: number;
}

/** A 1xx response the origin sent before its final one. */
export interface InterimResponse {
  status: number;
  statusText: string;
  /** Name, value, name, value… as received. */
  rawHeaders: readonly string[];
}

/** Per-request options of {@link OriginClient.send}. */
export interface SendOptions {
  /** Called for each interim (1xx) response, in order, before the promise resolves. */
  onInterim?: (interim: InterimResponse) => void;
}

/** Sends requests to one origin, keeping their path, query, method, headers and body. */
export interface OriginClient {
  /** Resolves with the origin's final response, or rejects with an {@link OriginError}. */
  send(request: Request, options?: SendOptions): Promise<Response>;
  /** Closes the pooled connections. */
  close(): void;
}

/** Why the origin gave no usable response; `status` is what the proxy answers instead. */
export class OriginError extends Error {
  override readonly name = 'OriginError';

  constructor(
    /** 504 when the origin was too slow, 502 otherwise. */
    readonly status: 502 | 504,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/**
 * Creates a client for `origin` (e.g. "http://127.0.0.1:8000", or with a path prefix that is
 * put before every request's path). The origin URL must already be validated.
 */
export function originClient(origin: URL, timeouts: OriginTimeouts): OriginClient {
  const https = origin.protocol === 'https:';
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const sendRequest = https ? httpsRequest : httpRequest;
  const prefix = origin.pathname.replace(/\/$/, '');
  // The TLS identity checked is the origin's, whatever Host the client asked for.
  const servername = https && isIP(origin.hostname) === 0 ? origin.hostname : undefined;

  function send(request: Request, options: SendOptions = {}): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(request.url);
      let settled = false;
      const fail = (error: OriginError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // Destroyed, not released: the connection's state is unknown.
        req.destroy();
        reject(error);
      };
      const req: ClientRequest = sendRequest({
        protocol: origin.protocol,
        hostname: origin.hostname,
        port: origin.port,
        path: prefix + url.pathname + url.search,
        method: request.method,
        headers: outboundHeaders(request, url),
        agent,
        ...(servername === undefined ? {} : { servername }),
      });
      const timer = setTimeout(() => fail(new OriginError(504, `the origin sent no response headers within ${timeouts.headersMs} ms`)), timeouts.headersMs);
      req.on('information', (info) => {
        if (!settled) options.onInterim?.({ status: info.statusCode, statusText: info.statusMessage, rawHeaders: info.rawHeaders });
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        fail(new OriginError(502, 'the origin switched protocols (101) although the request asked for no upgrade'));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? error.message;
        // HPE_* codes come from the HTTP parser: the origin answered, but not in valid HTTP/1.1.
        fail(new OriginError(502, code.startsWith('HPE_') ? `the origin's response is malformed (${code})` : `the origin did not answer (${code})`, { cause: error }));
      });
      req.on('response', (res) => {
        if (settled) return void res.destroy();
        try {
          const response = toResponse(res, request.method, timeouts.bodyIdleMs);
          settled = true;
          clearTimeout(timer);
          resolve(response);
        } catch (error) {
          res.destroy();
          fail(error instanceof OriginError ? error : new OriginError(502, `the origin's response cannot be relayed (${(error as Error).message})`, { cause: error }));
        }
      });
      if (request.body === null) req.end();
      else pump(request.body, req, declaredLength(request.headers)).then((whole) => whole && req.end()).catch((error: Error) => {
        fail(new OriginError(502, `the request body could not be sent: ${error.message}`, { cause: error }));
        // Even after the response came: a request cut short leaves the connection in doubt.
        req.destroy();
      });
    });
  }

  return { send, close: () => agent.destroy() };
}

/** The headers sent: end-to-end ones only, Host exactly the URL's authority (the keyed one). */
function outboundHeaders(request: Request, url: URL): Record<string, string> {
  const headers: Record<string, string> = {};
  const named = new Set((request.headers.get('connection') ?? '').split(',').map((n) => n.trim().toLowerCase()).filter(Boolean));
  for (const [name, value] of request.headers) {
    if (!isHopByHop(name, named)) headers[name] = value;
  }
  headers.host = url.host;
  // The length is only ever the one the body is checked against below.
  if (request.body === null) delete headers['content-length'];
  return headers;
}

function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  return value === null ? undefined : Number(value);
}

/** The origin's final response as a fetch Response whose body streams on demand. */
function toResponse(res: IncomingMessage, method: string, bodyIdleMs: number): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    throw new OriginError(502, `the origin answered with status ${status}, outside the range 100-599 that HTTP defines`);
  }
  const raw = res.rawHeaders;
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) if (n.trim()) named.add(n.trim().toLowerCase());
  }
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!isHopByHop(name, named)) headers.append(name, raw[i + 1]!);
  }
  const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
  // A bodiless response is read to its end at once, so its connection returns to the pool.
  if (empty) res.resume();
  const body = empty ? null : readableToWeb(res, {
    idleTimeoutMs: bodyIdleMs,
    idleError: () => new OriginError(504, `the origin sent no body bytes for ${bodyIdleMs} ms`),
    prematureCloseError: () => new OriginError(502, 'the origin closed the connection before the body ended'),
  });
  return new Response(body, { status, statusText: res.statusMessage, headers });
}
