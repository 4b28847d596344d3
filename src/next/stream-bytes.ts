/**
 * Next hands a `"use cache"` entry over as a stream and wants a new stream back from every read
 * (next/dist/server/lib/cache-handlers/types.d.ts): a handler must consume the stream once, must
 * not keep it past `set`, and decides what a stream that errors halfway is worth.
 */
import { readAtMost } from '../http/exchange/origin-call.ts';

/**
 * Reads `stream` to its end into one byte array. Undefined when it errors (partial data is not
 * an entry) or grows past `limit` bytes (a render bigger than the cache would store is not
 * buffered further: the rest is cancelled, so that nothing upstream keeps producing into it).
 */
export async function readStream(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | undefined> {
  try {
    return await readAtMost(stream, limit);
  } catch {
    return undefined;
  }
}

/** A new stream over stored bytes, for one reader. */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
