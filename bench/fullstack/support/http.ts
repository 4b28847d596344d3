import { request } from 'node:http';

/** A response read whole. */
export interface SimpleResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Largest response body read: the checks read small JSON answers, never a stream. */
const MAX_BODY_BYTES = 1 << 20;

/**
 * One request on a connection of its own (no keep-alive pool), bounded in time and size.
 * The harness's checks use it rather than fetch: after a long request (a KV prefill takes
 * seconds), workerd drops the kept-alive connection and a pooled client's next request on it
 * fails with ECONNRESET, which would read as a server failure.
 */
export function httpRequest(url: string, method = 'GET', timeoutMs = 60_000): Promise<SimpleResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          req.destroy(new Error(`${method} ${url}: the response is larger than ${MAX_BODY_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}
