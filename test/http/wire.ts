/**
 * Reading HTTP/1.1 responses off a raw byte stream the way a client on a keep-alive connection
 * does: each message ends where its own framing says (Content-Length, chunked, or nothing for
 * bodiless statuses), so a forged length shows as the next response being something else.
 */
import { rawExchange } from '../proxy/support.ts';

/** One response as a client on the connection would delimit it. */
export interface WireResponse {
  status: number;
  /** Header lines in order, names lowercase. */
  headers: Array<[string, string]>;
  body: string;
}

/** The first value of a header, lowercase name. */
export function wireHeader(response: WireResponse, name: string): string | undefined {
  return response.headers.find(([n]) => n === name)?.[1];
}

/**
 * Splits `text` into responses by their framing. Parsing stops at the first message whose head
 * or framing is incomplete; what is left over is returned as `rest`. Responses to HEAD requests
 * are framed as bodiless when `headRequests` says which ones (by index) were HEAD.
 */
export function parseResponses(text: string, headRequests: ReadonlySet<number> = new Set()): { responses: WireResponse[]; rest: string } {
  const responses: WireResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const [statusLine, ...lines] = text.slice(at, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? Number.NaN);
    if (Number.isNaN(status)) break;
    const headers = lines.map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
    const find = (name: string) => headers.find(([n]) => n === name)?.[1];
    let bodyStart = headEnd + 4;
    let body = '';
    const bodiless = headRequests.has(responses.length) || status === 204 || status === 304 || status < 200;
    if (!bodiless && find('transfer-encoding')?.toLowerCase().includes('chunked')) {
      let cursor = bodyStart;
      let complete = false;
      for (;;) {
        const lineEnd = text.indexOf('\r\n', cursor);
        if (lineEnd === -1) break;
        const size = Number.parseInt(text.slice(cursor, lineEnd), 16);
        if (Number.isNaN(size)) break;
        if (size === 0) {
          const trailerEnd = text.indexOf('\r\n\r\n', lineEnd);
          if (trailerEnd === -1) break;
          cursor = trailerEnd + 4;
          complete = true;
          break;
        }
        if (lineEnd + 2 + size + 2 > text.length) break;
        body += text.slice(lineEnd + 2, lineEnd + 2 + size);
        cursor = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      bodyStart = cursor;
    } else if (!bodiless) {
      const length = Number(find('content-length') ?? Number.NaN);
      if (Number.isNaN(length)) {
        // Close-delimited: the rest of the stream.
        responses.push({ status, headers, body: text.slice(bodyStart) });
        return { responses, rest: '' };
      }
      if (bodyStart + length > text.length) break;
      body = text.slice(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    responses.push({ status, headers, body });
    at = bodyStart;
  }
  return { responses, rest: text.slice(at) };
}

/**
 * Sends GET requests for `paths` on one connection, pipelined (the last one asks to close), and
 * returns the responses as that connection's client delimits them.
 */
export async function pipelinedGets(port: number, host: string, paths: readonly string[]): Promise<{ responses: WireResponse[]; rest: string }> {
  const bytes = paths.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join('');
  return parseResponses((await rawExchange(port, bytes, 1000)).text);
}
