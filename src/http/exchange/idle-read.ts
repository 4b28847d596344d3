/**
 * The origin's body-idle bound (`originIdleTimeout`): a read from an origin body that delivers
 * nothing for too long fails. The clock runs only while a read waits for the origin, never
 * while a client is slow to ask for more, so back-pressure is never taken for a silent origin.
 * Shared bodies apply it to their one source read (shared-body.ts); a body passed through to
 * one client unstored gets it from {@link idleBounded}.
 */

/** Raised into the clients' streams when the origin sent nothing for too long. */
export class OriginIdleError extends Error {
  override readonly name = 'OriginIdleError';
}

/** One read of `source`, rejected with {@link OriginIdleError} when it delivers nothing within `ms` (Infinity: no bound). */
export function readWithin(source: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (!Number.isFinite(ms)) return source.read();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OriginIdleError(`the origin sent no body bytes for ${ms} ms`)), ms);
  });
  return Promise.race([source.read(), idle]).finally(() => clearTimeout(timer));
}

/**
 * `body` read only on demand, each read bounded by `ms`; when one runs out, the stream errors
 * and `body` is cancelled (which, for an origin body, gives its connection up).
 */
export function idleBounded(body: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  if (!Number.isFinite(ms)) return body;
  const source = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await readWithin(source, ms);
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          await source.cancel(error).catch(() => {});
        }
      },
      cancel: (reason) => source.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
