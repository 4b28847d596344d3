/**
 * A Node Readable (an incoming request or an origin response) as a web ReadableStream that
 * reads only on demand. `Readable.toWeb` is not used: it reads ahead whatever the consumer
 * does, and an idle timer on top of it could not tell a silent peer from a slow consumer.
 * Here a chunk is read only when the consumer pulls, and the idle timer runs only while a
 * pull waits for bytes that do not come, so back-pressure never counts as idleness.
 */
import type { Readable } from 'node:stream';

/** Options of {@link readableToWeb}. */
export interface ReadableToWebOptions {
  /** How long a pull may wait for the next bytes, ms; 0 or absent waits for ever. */
  idleTimeoutMs?: number;
  /** The error the stream fails with when the idle timeout passes. */
  idleError?: () => Error;
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
  const idleMs = options.idleTimeoutMs ?? 0;
  // Kept for the next pull: an error may come while no pull waits, and an 'error' event
  // without a listener would crash the process.
  let failure: Error | undefined;
  source.on('error', (error: Error) => (failure ??= error));
  // Set by cancel: a pull still waiting must then settle without touching the closed controller.
  let cancelled = false;
  // The waiting pull's way out, for cancel: its listeners must go ('readable' would keep
  // resume() from draining) and its promise must settle.
  let abandonPull: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      return new Promise<void>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const cleanup = () => {
          abandonPull = undefined;
          if (timer !== undefined) clearTimeout(timer);
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
        if (idleMs > 0) {
          timer = setTimeout(() => {
            const error = options.idleError?.() ?? new Error(`no bytes arrived for ${idleMs} ms`);
            failure ??= error;
            cleanup();
            source.destroy(error);
            reject(error);
          }, idleMs);
        }
        attempt();
      });
    },
    cancel() {
      cancelled = true;
      abandonPull?.();
      if (options.onCancel === 'drain') source.resume();
      else source.destroy();
    },
  }, { highWaterMark: 1 });
}
