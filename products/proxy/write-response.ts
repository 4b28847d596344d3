/**
 * Writing a fetch Response, or a stored response the cache answered as bytes, to a node:http
 * ServerResponse, with the framing kept honest:
 *
 * - The framing is the writer's own. Stored bytes are untrusted (docs/architecture.md#failure-trust-and-reporting): a stored
 *   Content-Length shorter than the body would let the rest of the body, a complete forged
 *   response, answer the next request on the connection. So no stored Transfer-Encoding,
 *   Connection or other hop-by-hop field is written, and a stored body gets the Content-Length
 *   of the bytes written. A streamed body keeps the length it declares, and pump.ts checks it:
 *   a body that fails or does not match ends the connection instead of the message, so the
 *   client can never mistake a cut body for a complete one.
 * - Bodies stream with back-pressure (a slow client slows its reader, not memory), and what is
 *   left waiting for a client is counted in the proxy's {@link HeldBytes}, which bounds it.
 */
import type { ServerResponse } from 'node:http';
import type { HeaderPair } from '../../src/http/rules/headers.ts';
import { isHopByHop } from '../../src/http/rules/headers.ts';
import type { BytesAnswer } from '../../src/http/index.ts';
import type { HeldBytes } from './held-bytes.ts';
import { pump, SLICE_BYTES, writeSliced, type WriteWatcher } from './pump.ts';

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** Options of {@link writeResponse}. */
export interface WriteOptions {
  /** End the connection after this response (its framing is in doubt). */
  close?: boolean;
}

/** Writes `response` as the answer to a request with `method`; resolves when done or abandoned. */
export async function writeResponse(outgoing: ServerResponse, response: Response, method: string, held: HeldBytes, options: WriteOptions = {}): Promise<void> {
  const flat: string[] = [];
  for (const [name, value] of response.headers) if (!isHopByHop(name, undefined)) flat.push(name, value);
  if (options.close) flat.push('connection', 'close');
  // Head, body and end go out in one write when the body is at hand (a hit): corked until the
  // reads that resolve at once have run, which saves a syscall or two per response.
  outgoing.cork();
  setImmediate(() => outgoing.uncork());
  outgoing.writeHead(response.status, response.statusText || undefined, flat);
  const body = response.body;
  if (body === null || method === 'HEAD' || NULL_BODY_STATUS.has(response.status)) {
    void body?.cancel().catch(() => {});
    outgoing.end();
    return;
  }
  const declared = response.headers.get('content-length');
  const socket = outgoing.req.socket;
  const watcher: WriteWatcher = { hold: (bytes) => held.hold(socket, bytes) };
  try {
    // A client that goes away stops its reader (pump cancels it); a shared body goes on for the others.
    if (await pump(body, outgoing, declared === null ? undefined : Number(declared), watcher)) outgoing.end();
  } catch {
    // The client learns all it can from the cut connection; there is no one else to tell.
    outgoing.destroy();
  }
}

/**
 * Writes a stored response the cache answered as bytes (a hit or a 304): head, body and end in
 * one write, without a fetch Response in between. A body another client holds the same bytes
 * of is written from that copy; a large one is written in slices (pump.ts).
 */
export function writeBytes(outgoing: ServerResponse, answer: BytesAnswer, held: HeldBytes): void {
  const body = answer.body === null ? null : held.share(answer.body);
  outgoing.writeHead(answer.status, framedHeaders(answer.headers, body));
  if (body === null) return void outgoing.end();
  const socket = outgoing.req.socket;
  if (body.byteLength > SLICE_BYTES) {
    writeSliced(outgoing, body, { hold: (bytes) => held.hold(socket, bytes) }).then(
      (whole) => whole && outgoing.end(),
      () => outgoing.destroy(),
    );
    return;
  }
  outgoing.end(body);
  // Left over when the client is not reading (or when pipelined requests queue behind another).
  if (outgoing.writableLength > 0) {
    const holding = held.hold(socket, body);
    outgoing.once('finish', holding.release);
  }
}

/**
 * The stored fields as Node takes them, without any that frame the message, and with the
 * body's own Content-Length. A bodiless answer (HEAD) keeps a stored Content-Length, which
 * then only tells the length of the body a GET would get, when it is a plain number.
 */
function framedHeaders(headers: readonly HeaderPair[], body: Uint8Array | null): string[] {
  const flat: string[] = [];
  let length = body === null ? undefined : String(body.byteLength);
  for (const [name, value] of headers) {
    if (name !== 'content-length') {
      if (!isHopByHop(name, undefined)) flat.push(name, value);
    } else if (body === null && length === undefined && /^\d+$/.test(value)) {
      length = value;
    }
  }
  if (length !== undefined) flat.push('content-length', length);
  return flat;
}

/** A plain-text answer of the proxy's own. */
export function textResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });
}
