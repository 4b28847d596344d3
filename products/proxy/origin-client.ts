/**
 * Calls the origin over node:http(s) rather than fetch: fetch would decode Content-Encoding
 * (while keeping the header), refuse to forward Host, follow redirects and hide interim
 * responses — a proxy must pass bytes, headers and 1xx responses through as they are.
 *
 * Framing is never left to doubt. A request body is sent with the length the client declared
 * and checked against it, or chunked; a connection whose exchange did not end cleanly (an
 * error, an abort, a body nobody read to its end) is destroyed, never handed back to the
 * pool, so a half-read message can never be taken for the start of the next one.
 *
 * Timeouts are not this client's: the HTTP cache owns them (`originTimeout`,
 * `originIdleTimeout`) and aborts `request.signal` when the headers are late, or cancels the
 * body when it goes silent. Either destroys the origin connection here.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isHopByHop } from '../../src/http/rules/headers.ts';
import { isFinalStatus } from '../../src/http/exchange/origin-call.ts';
import { pump } from './pump.ts';
import { readableToWeb } from './readable-stream.ts';

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
  /**
   * Resolves with the origin's final response, or rejects with an {@link OriginError}; when
   * `request.signal` aborts first, rejects with its reason (and after the response, fails its
   * body with it). Either way the connection is destroyed, never reused.
   */
  send(request: Request, options?: SendOptions): Promise<Response>;
  /** Closes the pooled connections. */
  close(): void;
}

/** Why the origin gave no usable response: the proxy answers 502 Bad Gateway with this message. */
export class OriginError extends Error {
  override readonly name = 'OriginError';
}

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/**
 * Creates a client for `origin` (e.g. "http://127.0.0.1:8000", or with a path prefix that is
 * put before every request's path). The origin URL must already be validated.
 */
export function originClient(origin: URL): OriginClient {
  const https = origin.protocol === 'https:';
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const sendRequest = https ? httpsRequest : httpRequest;
  const prefix = origin.pathname.replace(/\/$/, '');
  // The TLS identity checked is the origin's, whatever Host the client asked for.
  const servername = https && isIP(origin.hostname) === 0 ? origin.hostname : undefined;

  function send(request: Request, options: SendOptions = {}): Promise<Response> {
    const signal = request.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(request.url);
      let settled = false;
      let response: IncomingMessage | undefined;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        // Destroyed, not released: the connection's state is unknown.
        req.destroy();
        reject(error);
      };
      // Before the response the send fails; after it, the body does (the socket goes either way).
      const abort = () => (response === undefined ? fail(signal.reason) : response.destroy());
      signal.addEventListener('abort', abort, { once: true });
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
      // Once the exchange is over an abort has nothing left to stop.
      req.once('close', () => signal.removeEventListener('abort', abort));
      req.on('information', (info) => {
        if (!settled) options.onInterim?.({ status: info.statusCode, statusText: info.statusMessage, rawHeaders: info.rawHeaders });
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        fail(new OriginError('the origin switched protocols (101) although the request asked for no upgrade'));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? error.message;
        // HPE_* codes come from the HTTP parser: the origin answered, but not in valid HTTP/1.1.
        fail(new OriginError(code.startsWith('HPE_') ? `the origin's response is malformed (${code})` : `the origin did not answer (${code})`, { cause: error }));
      });
      req.on('response', (res) => {
        if (settled) return void res.destroy();
        try {
          const answer = toResponse(res, request.method, signal);
          response = res;
          settled = true;
          resolve(answer);
        } catch (error) {
          res.destroy();
          fail(error instanceof OriginError ? error : new OriginError(`the origin's response cannot be relayed (${(error as Error).message})`, { cause: error }));
        }
      });
      if (request.body === null) req.end();
      else
        pump(request.body, req, declaredLength(request.headers))
          .then((whole) => whole && req.end())
          .catch((error: Error) => {
            fail(new OriginError(`the request body could not be sent: ${error.message}`, { cause: error }));
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
  const named = new Set(
    (request.headers.get('connection') ?? '')
      .split(',')
      .map((n) => n.trim().toLowerCase())
      .filter(Boolean),
  );
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
function toResponse(res: IncomingMessage, method: string, signal: AbortSignal): Response {
  const status = res.statusCode ?? 0;
  const raw = res.rawHeaders;
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const name of raw[i + 1]!.split(',')) if (name.trim()) named.add(name.trim().toLowerCase());
  }
  // A list handed to the Response whole: one Headers construction instead of one append per field.
  const headers: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!isHopByHop(name, named)) headers.push([name, raw[i + 1]!]);
  }
  if (!isFinalStatus(status)) return outOfRange(res, status, headers);
  const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
  // A bodiless response is read to its end at once, so its connection returns to the pool.
  if (empty) res.resume();
  const body = empty
    ? null
    : readableToWeb(res, {
        // Cut by an abort, the body fails with its reason; otherwise the origin cut it.
        prematureCloseError: () => (signal.aborted ? (signal.reason as Error) : new OriginError('the origin closed the connection before the body ended')),
      });
  return new Response(body, { status, statusText: res.statusMessage, headers });
}

/**
 * The answer for a final status HTTP does not define (outside 200–599). A fetch Response
 * cannot be built with it, yet the cache needs the status itself to answer with its 502 (or a
 * stale copy stale-if-error allows) and name it in Cache-Status, so the status is set on a
 * bodiless Response. The body is never read, so the connection is destroyed, not reused.
 */
function outOfRange(res: IncomingMessage, status: number, headers: Array<[string, string]>): Response {
  res.destroy();
  const response = new Response(null, { status: 502, headers });
  Object.defineProperty(response, 'status', { value: status });
  return response;
}
