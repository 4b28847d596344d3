/**
 * The own path of a client that fell a whole window behind the others on a shared body
 * (shared-body.ts): a request for the rest of the body from its offset, which must be the same
 * representation, checked by its strong ETag.
 */
import { callOrigin, discardBody, keyedEncoding, type OriginFetch } from './origin-call.ts';
import { parseContentRange } from '../rules/ranges.ts';

/**
 * Opens the rest of the body of `request`'s response (strong ETag `etag`) from a byte offset,
 * through `origin`: `Range` + `If-Range`, a 206 taken from that offset, a 200 of the same
 * representation skipped up to it. Undefined when there is no strong ETag to check against.
 */
export function resumer(origin: OriginFetch, request: Request, etag: string | null, timeoutMs: number): ((offset: number) => Promise<ReadableStream<Uint8Array>>) | undefined {
  if (etag === null || etag.startsWith('W/')) return undefined;
  const url = request.url;
  const headers = new Headers(request.headers);
  for (const name of ['if-none-match', 'if-modified-since', 'cache-control', 'pragma']) headers.delete(name);
  // The same coding the shared body came in: the origin was sent this Accept-Encoding for it.
  const encoding = keyedEncoding(headers);
  if (encoding !== undefined) headers.set('accept-encoding', encoding);
  return async (offset) => {
    headers.set('range', `bytes=${offset}-`);
    headers.set('if-range', etag);
    const rest = await callOrigin(origin, new Request(url, { headers }), timeoutMs);
    if (rest.headers.get('etag') !== etag || rest.body === null) {
      discardBody(rest);
      throw new Error('cachette: the origin no longer serves the representation this client was reading');
    }
    if (rest.status === 206 && parseContentRange(rest.headers.get('content-range'))?.span[0] === offset) return rest.body;
    if (rest.status === 200) return rest.body.pipeThrough(skipBytes(offset));
    discardBody(rest);
    throw new Error(`cachette: the origin answered ${rest.status} when asked for the rest of a body`);
  };
}

/** Drops the first `count` bytes of a stream. */
function skipBytes(count: number): TransformStream<Uint8Array, Uint8Array> {
  let left = count;
  return new TransformStream({
    transform(chunk, controller) {
      if (left >= chunk.byteLength) {
        left -= chunk.byteLength;
        return;
      }
      controller.enqueue(left === 0 ? chunk : chunk.subarray(left));
      left = 0;
    },
  });
}
