/**
 * A Node Readable (an incoming request or an origin response) as a web ReadableStream that
 * reads only on demand. `Readable.toWeb` is not used: it reads ahead whatever the consumer
 * does, so the HTTP cache's body-idle bound (which runs only while a read waits for bytes)
 * could not tell a silent peer from a slow consumer, and back-pressure would stop at it.
 */
import type { Readable } from 'node:stream';

/** Options of {@link readableToWeb}. */
export interface ReadableToWebOptions {
  /** The error the stream fails with when the source closes before its end. */
  prematureCloseError?: () => Error;
  /**
   * What cancelling does to the source: `destroy` it (and its socket; the default, for an
   * origin response nobody reads), or `drain` it (read and drop the rest: an incoming request
   * body the origin did not want, whose connection must stay able to carry the answer).
   */
  onCancel?: 'destroy' | 'drain';
}

/** Wraps `source`; cancelling the web stream destroys or drains it (see {@link ReadableToWebOptions.onCancel}). */
export function readableToWeb(source: Readable, options: ReadableToWebOptions = {}): ReadableStream<Uint8Array> {
  // Kept for the next pull: an error may come while no pull waits, and an 'error' event
  // without a listener would crash the process.
  let failure: Error | undefined;
  source.on('error', (error: Error) => (failure ??= error));
  // Set by cancel: a pull still waiting must then settle without touching the closed controller.
  let cancelled = false;
  // The waiting pull's way out, for cancel: its listeners must go ('readable' would keep
  // resume() from draining) and its promise must settle.
  let abandonPull: (() => void) | undefined;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve, reject) => {
          const cleanup = () => {
            abandonPull = undefined;
            source.off('readable', attempt);
            source.off('end', ended);
            source.off('error', failed);
            source.off('close', closed);
          };
          const ended = () => {
            cleanup();
            if (!cancelled) controller.close();
            resolve();
          };
          const failed = (error: Error) => {
            cleanup();
            reject(error);
          };
          const closed = () => {
            // 'end' comes before 'close' on a complete body; a close without it is a cut body.
            if (source.readableEnded) return ended();
            failed(failure ?? options.prematureCloseError?.() ?? new Error('the stream closed before its end'));
          };
          function attempt(): void {
            const chunk = source.read() as Buffer | null;
            if (chunk !== null) {
              cleanup();
              if (!cancelled) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              resolve();
            } else if (source.readableEnded) {
              ended();
            } else if (failure !== undefined || source.destroyed) {
              closed();
            }
          }
          abandonPull = () => {
            cleanup();
            resolve();
          };
          source.on('readable', attempt);
          source.on('end', ended);
          source.on('error', failed);
          source.on('close', closed);
          attempt();
        });
      },
      cancel() {
        cancelled = true;
        abandonPull?.();
        if (options.onCancel === 'drain') source.resume();
        else source.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}
