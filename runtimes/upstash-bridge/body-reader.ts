import type { IncomingMessage } from 'node:http';
import { BridgeError } from './bridge-error.ts';

/**
 * Reads a request body as UTF-8 text, refusing more than `limit` bytes (413) as soon as the
 * declared length or the bytes received pass it, so a huge body is never buffered.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function tooLarge(limit: number): BridgeError {
  return new BridgeError(413, `the body exceeds the bridge's limit of ${limit} bytes (maxBodyBytes / --max-body-bytes)`);
}
