/**
 * Requests other than GET and HEAD (RFC 9111 §4.4; RFC 9110 §9.3.3): always forwarded; a
 * successful unsafe method invalidates the URL and its same-origin Location and
 * Content-Location; a POST whose response states its freshness and names its own URL in
 * Content-Location is stored as the answer to later GETs of that URL.
 */
import { requestDirectives } from '../rules/cache-control.ts';
import type { Forwarder } from './forward.ts';
import type { HandleOptions } from './handle-options.ts';
import type { OriginFetch } from './origin-call.ts';
import type { Responder } from './responses.ts';
import { responseDirectives } from '../rules/response-directives.ts';
import { postAnswersGets, unstorableReason } from '../rules/storability.ts';
import { responseTags } from '../rules/tags.ts';
import type { ResolvedHttpOptions } from './options.ts';
import type { Forwards } from './collapsing.ts';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** What handling an unsafe method needs. */
export interface UnsafeMethodsContext {
  options: ResolvedHttpOptions;
  forwarder: Forwarder;
  forwards: Forwards;
  responder: Responder;
  /** Fences and deletes what is stored for the primary keys (the purge path). */
  invalidate(keys: string[], handleOptions: HandleOptions): Promise<unknown>;
}

/** Forwards a request with any method but GET and HEAD, and applies what its success means for the cache. */
export async function handleOtherMethod(context: UnsafeMethodsContext, request: Request, origin: OriginFetch, handleOptions: HandleOptions): Promise<Response> {
  const key = context.options.key(request);
  const requestTime = context.options.now();
  const response = await origin(request);
  const responseTime = context.options.now();
  const status = response.status;
  if (SAFE_METHODS.has(request.method) || status < 200 || status >= 400) return context.responder.relay(response, request, { fwd: 'method' }, undefined);
  const keys = [key];
  const self = new URL(request.url);
  for (const name of ['location', 'content-location']) {
    const value = response.headers.get(name);
    if (value === null || !URL.canParse(value, self)) continue;
    const target = new URL(value, self);
    if (target.origin === self.origin) keys.push(context.options.key(new Request(target)));
  }
  // Awaited so that a client's next GET after its write never sees the old response.
  await context.invalidate(keys, handleOptions);
  const directives = responseDirectives(response.headers, context.options.targetedFields);
  const fromRequest = requestDirectives(request.headers);
  const tags = responseTags(request, response, context.options.tags);
  if (postAnswersGets(request, response, directives) && unstorableReason(request, response, directives, fromRequest, context.options, tags) === undefined) {
    const forward = context.forwards.begin(key, false);
    return context.forwarder.storeAndShare(
      { request, origin, options: handleOptions, requestDirectives: fromRequest, key, found: { kind: 'uri-miss' }, forwardReason: 'method', lead: false },
      response,
      { directives, tags },
      { requestTime, responseTime },
      forward,
    );
  }
  return context.responder.fromOrigin(response, request, { fwd: 'method', fwdStatus: status }, undefined);
}
