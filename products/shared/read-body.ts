/** Reading a whole request body into memory, within a limit, for the small JSON APIs of the `cachette` servers. */
import type { IncomingMessage } from 'node:http';

/** The body is larger than the limit (declared by Content-Length, or counted while reading). */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';

  constructor(
    /** The limit that was passed, bytes. */
    readonly limit: number,
  ) {
    super(`the body exceeds the limit of ${limit} bytes`);
  }
}

/**
 * Reads `req`'s body, refusing more than `limit` bytes as soon as the declared length or the
 * bytes received pass it, so a huge body is never buffered. On refusal the rest of the body
 * is left unread and the socket open, so that the caller can still answer (with
 * `Connection: close`, since the connection's framing is then in doubt).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
