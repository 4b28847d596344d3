import { OutgoingMessage, type OutgoingHttpHeader } from 'node:http';
import type { BytesAnswer } from '../../../src/http/index.ts';
import { headerList, type HeaderFields, type RealResponse } from './real-response.ts';

/** Options of {@link sendResponse}. */
export interface SendOptions {
  /**
   * Keep `res.statusCode` and `res.statusMessage` as the handlers left them: they are still
   * writing their own response (a background revalidation), and Node's writeHead overwrites both.
   */
  keepHandlerStatus: boolean;
  /**
   * Fields that belong to this request and are not on the response yet (Fastify's reply
   * headers set by hooks before the cache): written first, under the answer's.
   */
  requestHeaders?: HeaderFields;
}

/**
 * Writes a fetch Response to the client through the real response: its fields on top of those
 * upstream middleware set (the response's win, Set-Cookie adds), its status, then its body with
 * back-pressure. A client that goes away cancels the body; a body that fails mid-stream
 * destroys the connection, the only way left to tell the client it is incomplete.
 */
export async function sendResponse(real: RealResponse, response: Response, options: SendOptions): Promise<void> {
  const res = real.res;
  writeHead(real, response.status, response.statusText, response.headers, response.headers.getSetCookie(), options);
  if (!response.body) {
    real.call('end');
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  real.call('once', 'close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.writable) return; // the client went away: the cancel above stops the body
      if (!real.call('write', value)) await drained(real);
    }
    real.call('end');
  } catch (error) {
    res.destroy(error as Error);
  } finally {
    real.call('removeListener', 'close', onClose);
  }
}

/**
 * Writes a stored response the cache answered as bytes (a hit or a 304), as {@link sendResponse}
 * would write the Response it stands for, in one write and without building that Response.
 */
export function sendBytes(real: RealResponse, answer: BytesAnswer, options: SendOptions): void {
  // Repeated fields are combined as a Response's Headers would combine them; cookies stay apart.
  const fields = new Map<string, string>();
  const cookies: string[] = [];
  for (const [name, value] of answer.headers) {
    if (name === 'set-cookie') cookies.push(value);
    else fields.set(name, fields.has(name) ? `${fields.get(name)!}, ${value}` : value);
  }
  writeHead(real, answer.status, '', fields, cookies, options);
  if (answer.body === null) real.call('end');
  else real.call('end', answer.body);
}

/** The head of either kind of answer: its fields on top of upstream's (the answer's win, Set-Cookie adds), then its status. */
function writeHead(real: RealResponse, status: number, statusText: string, fields: Iterable<[string, string]>, cookies: readonly string[], options: SendOptions): void {
  const res = real.res;
  for (const [name, value] of Object.entries(options.requestHeaders ?? {})) if (value !== undefined) real.call('setHeader', name, value);
  for (const [name, value] of fields) if (name !== 'set-cookie') real.call('setHeader', name, value);
  if (cookies.length > 0) real.call('setHeader', 'set-cookie', [...headerList(real.call('getHeader', 'set-cookie') as OutgoingHttpHeader | undefined), ...cookies]);
  const handlerStatus = res.statusCode;
  const handlerMessage = res.statusMessage;
  real.call('writeHead', status, ...(statusText ? [statusText] : []));
  if (options.keepHandlerStatus) {
    res.statusCode = handlerStatus;
    res.statusMessage = handlerMessage;
  }
}

/** Resolves once the real response wants more (or is gone). */
function drained(real: RealResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      if (real.res.writableNeedDrain && !real.res.destroyed) return;
      real.call('removeListener', 'drain', done);
      real.call('removeListener', 'close', done);
      resolve();
    };
    real.call('on', 'drain', done);
    real.call('on', 'close', done);
  });
}

const realHeadersSent = Object.getOwnPropertyDescriptor(OutgoingMessage.prototype, 'headersSent')!.get!;

/**
 * The answer when the retry RFC 9111 §4.3.4 asks for (after a 304 that matches no stored
 * response) is impossible: the handlers already ran in this request, and there is no server to
 * send a new request through.
 */
export function cannotRetry(): Response {
  return new Response("Bad Gateway: the handler answered the cache's conditional request with a 304 that matches no stored response\n", {
    status: 502,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
}

/**
 * Nothing may be left hanging when the cache failed to answer: a 502 when nothing was sent
 * yet, else the connection is closed (the only way left to tell the client its answer is
 * incomplete). Reads the response's own state, not what a capture tells the handlers.
 */
export function failResponse(real: RealResponse, error: unknown): void {
  const res = real.res;
  if (res.destroyed) return;
  if (realHeadersSent.call(res)) {
    res.destroy(error instanceof Error ? error : undefined);
    return;
  }
  real.call('writeHead', 502, { 'content-type': 'text/plain; charset=utf-8' });
  real.call('end', 'Bad Gateway: the cache could not answer\n');
}
