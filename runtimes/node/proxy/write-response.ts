/**
 * Writing a fetch Response to a node:http ServerResponse, with the framing it declares kept
 * honest: the body streams with back-pressure (a slow client slows its reader, not memory),
 * and a body that fails or does not match its Content-Length ends the connection instead of
 * the message, so the client can never mistake a cut body for a complete one.
 */
import type { ServerResponse } from 'node:http';
import { pump } from './pump.ts';

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** Writes `response` as the answer to a request with `method`; resolves when done or abandoned. */
export async function writeResponse(outgoing: ServerResponse, response: Response, method: string): Promise<void> {
  const flat: string[] = [];
  for (const [name, value] of response.headers) flat.push(name, value);
  // Head, body and end go out in one write when the body is at hand (a hit): corked until the
  // reads that resolve at once have run, which saves a syscall or two per response.
  outgoing.cork();
  setImmediate(() => outgoing.uncork());
  outgoing.writeHead(response.status, response.statusText || undefined, flat);
  const body = response.body;
  if (body === null || method === 'HEAD' || NULL_BODY_STATUS.has(response.status)) {
    void body?.cancel().catch(() => {});
    outgoing.end();
    return;
  }
  const declared = response.headers.get('content-length');
  try {
    // A client that goes away stops its reader (pump cancels it); a shared body goes on for the others.
    if (await pump(body, outgoing, declared === null ? undefined : Number(declared))) outgoing.end();
  } catch {
    // The client learns all it can from the cut connection; there is no one else to tell.
    outgoing.destroy();
  }
}

/** A plain-text answer of the proxy's own. */
export function textResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });
}
