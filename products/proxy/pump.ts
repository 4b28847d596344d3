/**
 * Copying bytes into a Node writable — a request body to the origin, a response body to the
 * client — with back-pressure (the writer waits for 'drain', so a slow peer slows the copy
 * instead of filling memory) and with the declared length enforced exactly: a byte past it
 * would be read by the peer as the start of the next message.
 *
 * Large chunks (a stored body comes as one) are written in slices, so that a peer that takes
 * them slowly shows progress at every slice; while the writer waits for a peer, the chunk it
 * holds is counted through a {@link WriteWatcher} (held-bytes.ts bounds what clients hold).
 */
import type { Writable } from 'node:stream';
import type { Holding } from './held-bytes.ts';

/** Largest slice written at once: what a peer must take to show progress. */
export const SLICE_BYTES = 64 * 1024;

/** Told about the bytes the writer holds while it waits for the peer. */
export interface WriteWatcher {
  /** Counts `bytes` as held until the holding is released. */
  hold(bytes: Uint8Array): Holding;
}

/**
 * Copies `body` into `writable` without ending it. Resolves true when the body was copied
 * whole, false when `writable` closed first; rejects (after cancelling `body`) when reading
 * fails or the length differs from `declared`. The caller then ends, or destroys, `writable`.
 * When `writable` closes while a read is pending, `body` is cancelled at once rather than at
 * its next chunk, so that a reader nobody serves stops holding its source.
 */
export async function pump(body: ReadableStream<Uint8Array>, writable: Writable, declared: number | undefined, watcher?: WriteWatcher): Promise<boolean> {
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
      if (!(await writeSliced(writable, value, watcher))) return false;
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

/**
 * Writes `bytes` into `writable` in slices of at most {@link SLICE_BYTES}, waiting for 'drain'
 * whenever the writable is full (`bytes` is then held, for the watcher, until the wait ends).
 * Resolves true once every slice was accepted, false when `writable` closed first.
 */
export async function writeSliced(writable: Writable, bytes: Uint8Array, watcher?: WriteWatcher): Promise<boolean> {
  let holding: Holding | undefined;
  try {
    for (let offset = 0; offset < bytes.byteLength; offset += SLICE_BYTES) {
      const slice = bytes.byteLength <= SLICE_BYTES ? bytes : bytes.subarray(offset, offset + SLICE_BYTES);
      if (!writable.write(slice)) {
        holding ??= watcher?.hold(bytes);
        await drained(writable);
        holding?.progress();
      }
      if (writable.destroyed) return false;
    }
    return true;
  } finally {
    holding?.release();
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
