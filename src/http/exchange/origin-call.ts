/**
 * Calling the origin: the request it receives (the cache's validators instead of the
 * client's, ranges for the part of a body the cache lacks), a bound on how long it may take to
 * answer, and which answers the cache can use at all.
 */
import type { Validators } from '../rules/conditional.ts';
import type { Span } from '../rules/ranges.ts';
import { acceptedEncodings } from '../rules/vary.ts';

/** Calls the origin for one request. */
export type OriginFetch = (request: Request) => Promise<Response>;

/** Raised when the origin did not answer with a status and headers in time. */
export class OriginTimeoutError extends Error {
  override readonly name = 'OriginTimeoutError';
}

/** What the cache adds to the client's request before it goes to the origin. */
export interface OriginAsk {
  /** The response may be stored: the client's own validators would get a 304 the cache cannot store. */
  mayStore: boolean;
  /** A stored response to revalidate: its validators go to the origin. */
  validators: Validators | undefined;
  /** The part of the body the cache lacks, and the strong ETag that part must belong to. */
  gap: { span: Span; etag: string } | undefined;
}

/**
 * The request sent to the origin: the client's, unchanged when the cache adds nothing;
 * otherwise without the client's validators when the response may be stored (they are
 * answered from the full response instead), with the cache's own validators when it holds a
 * response, with `Range` + `If-Range` when it asks only for a missing part, and with
 * Accept-Encoding as the variant key reads it (vary.ts), so that the origin picks its coding
 * among those the key says the client takes.
 */
export function originRequest(request: Request, ask: OriginAsk): Request {
  const sent = request.headers;
  const clientConditional = sent.has('if-none-match') || sent.has('if-modified-since');
  const encoding = keyedEncoding(sent);
  if (ask.validators === undefined && ask.gap === undefined && !(ask.mayStore && clientConditional) && encoding === undefined) return request;
  const headers = new Headers(sent);
  if (encoding !== undefined) headers.set('accept-encoding', encoding);
  if (ask.mayStore || ask.validators) {
    headers.delete('if-none-match');
    headers.delete('if-modified-since');
  }
  if (ask.validators?.etag) headers.set('if-none-match', ask.validators.etag);
  if (ask.validators?.lastModified) headers.set('if-modified-since', ask.validators.lastModified);
  if (ask.gap) {
    headers.set('range', `bytes=${ask.gap.span[0]}-${ask.gap.span[1] - 1}`);
    headers.set('if-range', ask.gap.etag);
  }
  return new Request(request.url, { method: request.method, headers });
}

/** Accept-Encoding as the variant key reads it, when that differs from what the client sent (undefined otherwise). */
export function keyedEncoding(headers: Headers): string | undefined {
  const sent = headers.get('accept-encoding');
  if (sent === null) return undefined;
  const keyed = acceptedEncodings(sent);
  return keyed === sent ? undefined : keyed;
}

/**
 * Calls `origin`, failing with {@link OriginTimeoutError} when it has not answered within
 * `timeoutMs`. The origin's request then carries an aborted signal, and a response that comes
 * later is cancelled unread.
 */
export async function callOrigin(origin: OriginFetch, request: Request, timeoutMs: number): Promise<Response> {
  if (!Number.isFinite(timeoutMs)) return origin(request);
  const controller = new AbortController();
  const call = Promise.resolve().then(() => origin(withSignal(request, controller.signal)));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new OriginTimeoutError(`the origin did not answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([call, timeout]);
  } catch (error) {
    if (error instanceof OriginTimeoutError) void call.then(discardBody, () => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `request` with `signal` as its only signal. Built from its parts rather than with
 * `new Request(request, { signal })`, which reads the original's signal to follow it: on
 * Deno.serve that read alone prints a warning ("request.signal aborts on successful responses
 * (legacy behavior)") on the first cached request of every program. The cache calls the origin
 * this way for GET and HEAD only; a body, were there one, goes along.
 */
function withSignal(request: Request, signal: AbortSignal): Request {
  const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headers, redirect: request.redirect, signal };
  if (request.body !== null) {
    init.body = request.body;
    init.duplex = 'half';
  }
  return new Request(request.url, init);
}

/**
 * True for a status a final response may have. A fetch Response can only be built with
 * 200–599 (or 101 on some runtimes), but a Response-like object can carry anything (Node's
 * lazy Response under @hono/node-server accepts 999 and fails later, far from the cause).
 */
export function isFinalStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 200 && status <= 599;
}

/** The text of the 502 for an origin status the cache cannot relay. */
export function badStatusMessage(status: number): string {
  return status >= 100 && status <= 199
    ? `Bad Gateway: the origin answered with the interim status ${status} as its final response`
    : `Bad Gateway: the origin answered with status ${String(status)}, outside the 100–599 range HTTP allows`;
}

/**
 * Cancels the body of a response nobody will read. Never throws: reading `body` of a lazy
 * Response with a status outside 200–599 throws on Node under @hono/node-server.
 */
export function discardBody(response: Response): void {
  try {
    void response.body?.cancel().catch(() => {});
  } catch {
    // Nothing to cancel that could be reached.
  }
}

/**
 * Reads a whole body of at most `max` bytes; undefined (and the rest cancelled) as soon as it
 * holds more, so that an origin sending more than it announced cannot grow the buffer.
 */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(read.value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
