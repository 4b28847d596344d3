/**
 * Requests other than GET and HEAD (RFC 9111 §4.4; RFC 9110 §9.3.3): always forwarded; a
 * successful unsafe method invalidates the URL and its same-origin Location and
 * Content-Location; a POST whose response states its freshness and names its own URL in
 * Content-Location is stored as the answer to later GETs of that URL.
 */
import { requestDirectives } from './cache-control.ts';
import type { Forwarder } from './forward.ts';
import type { HandleOptions } from './handle-options.ts';
import type { OriginFetch } from './origin-call.ts';
import type { Responder } from './responses.ts';
import { responseDirectives } from './response-directives.ts';
import { postAnswersGets, unstorableReason } from './storability.ts';
import { responseTags } from './tags.ts';
import type { ResolvedHttpOptions } from './options.ts';
import type { Forwards } from './collapsing.ts';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** What handling an unsafe method needs. */
export interface UnsafeMethodsContext {
  o: ResolvedHttpOptions;
  forwarder: Forwarder;
  forwards: Forwards;
  responder: Responder;
  /** Fences and deletes what is stored for the primary keys (the purge path). */
  invalidate(keys: string[], options: HandleOptions): Promise<unknown>;
}

/** Forwards a request with any method but GET and HEAD, and applies what its success means for the cache. */
export async function handleOtherMethod(c: UnsafeMethodsContext, request: Request, origin: OriginFetch, options: HandleOptions): Promise<Response> {
  const key = c.o.key(request);
  const requestTime = c.o.now();
  const res = await origin(request);
  const responseTime = c.o.now();
  const status = res.status;
  if (SAFE_METHODS.has(request.method) || status < 200 || status >= 400) return c.responder.relay(res, request, { fwd: 'method' }, undefined);
  const keys = [key];
  const self = new URL(request.url);
  for (const name of ['location', 'content-location']) {
    const value = res.headers.get(name);
    if (value === null || !URL.canParse(value, self)) continue;
    const target = new URL(value, self);
    if (target.origin === self.origin) keys.push(c.o.key(new Request(target)));
  }
  // Awaited so that a client's next GET after its write never sees the old response.
  await c.invalidate(keys, options);
  const directives = responseDirectives(res.headers, c.o.targetedFields);
  const rd = requestDirectives(request.headers);
  const tags = responseTags(request, res, c.o.tags);
  if (postAnswersGets(request, res, directives) && unstorableReason(request, res, directives, rd, c.o, tags) === undefined) {
    const forward = c.forwards.begin(key, false);
    return c.forwarder.storeAndShare({ request, origin, options, rd, key, found: { kind: 'uri-miss' }, fwd: 'method', lead: false }, res, { directives, tags }, { requestTime, responseTime }, forward);
  }
  return c.responder.fromOrigin(res, request, { fwd: 'method', fwdStatus: status }, undefined);
}
