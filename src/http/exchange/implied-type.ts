/**
 * The Content-Type a response's body implies. Fetch puts it in the headers when the body is
 * built (a string body: `text/plain;charset=UTF-8`), but Bun keeps it on the body and its
 * server adds it only on the wire (oven-sh/bun#8530). The cache rebuilds every response it
 * sends from the origin's headers and body, so a type it cannot see was lost: on Bun,
 * `new Response('hello')` went out with no Content-Type on the miss and as
 * `application/octet-stream` on the hit, and a browser downloaded the page. A runtime whose
 * responses hide it installs a probe (runtimes/native/install.ts, on Bun); the cache then shows
 * the type in the headers of each origin response that lacks one, before it is stored or sent.
 */
import type { HandleOptions } from './handle-options.ts';
import type { OriginFetch } from './origin-call.ts';

/** Reads the type `response`'s body implies, without consuming it; undefined when there is none, or it cannot tell. */
export type ImpliedTypeProbe = (response: Response) => string | undefined;

let probe: ImpliedTypeProbe | undefined;

/** Makes `implied` the probe every HTTP cache uses from now on (once per process, by the runtime's entry). */
export function installImpliedTypeProbe(implied: ImpliedTypeProbe): void {
  probe = implied;
}

/**
 * `origin` and `options.revalidate` with their responses' implied type shown in the headers;
 * as they are when no probe is installed (every runtime but Bun), at no cost.
 */
export function showingImpliedTypes(origin: OriginFetch, options: HandleOptions): { origin: OriginFetch; options: HandleOptions } {
  if (probe === undefined) return { origin, options };
  const typed =
    (fetch: OriginFetch): OriginFetch =>
    (request) =>
      fetch(request).then(withImpliedType);
  const revalidate = options.revalidate;
  return { origin: typed(origin), options: revalidate ? { ...options, revalidate: typed(revalidate) } : options };
}

/** `response` with the Content-Type its body implies set in its headers, when it has none. */
export function withImpliedType(response: Response): Response {
  if (probe === undefined || response.body === null || response.headers.has('content-type')) return response;
  const type = probe(response);
  if (type === undefined) return response;
  try {
    response.headers.set('content-type', type);
    return response;
  } catch {
    // Immutable headers (a fetch() response passed through): the same response with them copied.
    const headers = new Headers(response.headers);
    headers.set('content-type', type);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
