import type { OutgoingHttpHeader } from 'node:http';
import { headerList, type RealResponse } from './real-response.ts';

/** Options of {@link sendResponse}. */
export interface SendOptions {
  /**
   * Keep `res.statusCode` and `res.statusMessage` as the handlers left them: they are still
   * writing their own response (a background revalidation), and Node's writeHead overwrites both.
   */
  keepHandlerStatus: boolean;
}

/**
 * Writes a fetch Response to the client through the real response: its fields on top of those
 * upstream middleware set (the response's win, Set-Cookie adds), its status, then its body with
 * back-pressure. A client that goes away cancels the body; a body that fails mid-stream
 * destroys the connection, the only way left to tell the client it is incomplete.
 */
export async function sendResponse(real: RealResponse, response: Response, options: SendOptions): Promise<void> {
  const res = real.res;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') real.call('setHeader', name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) real.call('setHeader', 'set-cookie', [...headerList(real.call('getHeader', 'set-cookie') as OutgoingHttpHeader | undefined), ...cookies]);
  const handlerStatus = res.statusCode;
  const handlerMessage = res.statusMessage;
  real.call('writeHead', response.status, ...(response.statusText ? [response.statusText] : []));
  if (options.keepHandlerStatus) {
    res.statusCode = handlerStatus;
    res.statusMessage = handlerMessage;
  }
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
