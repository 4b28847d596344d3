/**
 * Whether a shared cache may store a response (RFC 9111 §3, §3.5, §5.2.2; RFC 9110 §9.3.3),
 * and when not, why: the reason becomes Cache-Status `detail`. Pure.
 */
import type { RequestDirectives } from './cache-control.ts';
import { HEURISTICALLY_CACHEABLE, hasExplicitFreshness } from './freshness.ts';
import type { ResponseDirectives } from './response-directives.ts';
import { MAX_RESPONSE_TAGS } from './tags.ts';
import { oversizedVaryField, parseVary } from './vary.ts';

/** What to do with a response that sets a cookie. */
export type SetCookiePolicy = 'bypass' | 'strip' | 'store';

/** The options storability depends on. */
export interface StorabilityPolicy {
  setCookie: SetCookiePolicy;
  maxBodyBytes: number;
  storePartial: boolean;
}

/**
 * Statuses whose caching requirements this cache implements, for `must-understand` (§5.2.2.3):
 * the final statuses RFC 9110 defines, which it stores only by the rules above. 206 counts
 * only when partial responses are stored at all.
 */
const UNDERSTOOD: ReadonlySet<number> = new Set([
  200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 305, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426, 500, 501, 502, 503, 504,
  505,
]);

/**
 * Why the response to a GET (or to a POST that answers later GETs), carrying `tags`, may not
 * be stored, or undefined when it may.
 */
export function unstorableReason(
  request: Request,
  response: Response,
  directives: ResponseDirectives,
  fromRequest: RequestDirectives,
  policy: StorabilityPolicy,
  tags: readonly string[],
): string | undefined {
  if (fromRequest.noStore) return 'request-no-store';
  const status = response.status;
  if (status < 200 || status === 304 || (status === 206 && !policy.storePartial)) return 'status';
  const { cacheControl } = directives;
  let noStore = cacheControl.has('no-store');
  if (cacheControl.has('must-understand')) {
    // §5.2.2.3: a cache that conforms to the status code's caching requirements may ignore
    // no-store; one that does not must not store at all.
    if (!UNDERSTOOD.has(status) && !(status === 206 && policy.storePartial)) return 'must-understand';
    noStore = false;
  }
  if (!HEURISTICALLY_CACHEABLE.has(status) && !hasExplicitFreshness(response.headers, directives)) return 'status';
  if (noStore) return 'no-store';
  if (cacheControl.has('private')) return 'private';
  if (request.headers.has('authorization') && !cacheControl.has('public') && !cacheControl.has('s-maxage') && !cacheControl.has('must-revalidate')) return 'authorization';
  if (policy.setCookie === 'bypass' && response.headers.has('set-cookie')) return 'set-cookie';
  const vary = parseVary(response.headers.get('vary'));
  if (vary === '*') return 'vary-star';
  if (oversizedVaryField(vary, request.headers) !== undefined) return 'vary-value-too-long';
  const length = response.headers.get('content-length');
  if (length !== null && Number(length) > policy.maxBodyBytes) return 'too-large';
  // Truncating the list would leave the entry alive after a purge of a tag left out.
  if (tags.length > MAX_RESPONSE_TAGS) return 'too-many-tags';
  return undefined;
}

/**
 * True when a POST response may answer later GETs of its URL (RFC 9110 §9.3.3): it states its
 * own freshness and its Content-Location is the request's URL.
 */
export function postAnswersGets(request: Request, response: Response, directives: ResponseDirectives): boolean {
  if (request.method !== 'POST' || !hasExplicitFreshness(response.headers, directives)) return false;
  const location = response.headers.get('content-location');
  if (location === null || !URL.canParse(location, request.url)) return false;
  const target = new URL(location, request.url);
  const self = new URL(request.url);
  target.hash = '';
  self.hash = '';
  return target.href === self.href;
}
