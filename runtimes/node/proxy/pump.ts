/**
 * Copying a web stream into a Node writable — a request body to the origin, a response body
 * to the client — with back-pressure (the writer waits for 'drain', so a slow peer slows the
 * copy instead of filling memory) and with the declared length enforced exactly: a byte past
 * it would be read by the peer as the start of the next message.
 */
import type { Writable } from 'node:stream';

/**
 * Copies `body` into `writable` without ending it. Resolves true when the body was copied
 * whole, false when `writable` closed first; rejects (after cancelling `body`) when reading
 * fails or the length differs from `declared`. The caller then ends, or destroys, `writable`.
 * When `writable` closes while a read is pending, `body` is cancelled at once rather than at
 * its next chunk, so that a reader nobody serves stops holding its source.
 */
export async function pump(body: ReadableStream<Uint8Array>, writable: Writable, declared: number | undefined): Promise<boolean> {
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  writable.once('close', onClose);
  let copied = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      copied += value.byteLength;
      if (declared !== undefined && copied > declared) throw new Error(`the body is longer than its Content-Length of ${declared}`);
      if (!writable.write(value)) await drained(writable);
      if (writable.destroyed) return false;
    }
    if (writable.destroyed) return false;
    if (declared !== undefined && copied !== declared) throw new Error(`the body ended after ${copied} of its ${declared} bytes`);
    return true;
  } catch (error) {
    void reader.cancel().catch(() => {});
    throw error;
  } finally {
    writable.off('close', onClose);
  }
}

/** Resolves when `writable` may take more bytes ('drain') or never will ('close'). */
function drained(writable: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      writable.off('drain', done);
      writable.off('close', done);
      resolve();
    };
    writable.once('drain', done);
    writable.once('close', done);
  });
}
