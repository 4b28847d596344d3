/**
 * The stored form of a response (RFC 9111 §3.1): the meta of an origin response as the cache
 * keeps it, and the update a 304 makes to a stored response (§3.2, §4.3.4). Pure.
 */
import { freshness, type FreshnessPolicy } from './freshness.ts';
import { connectionNames, isHopByHop, type HeaderPair } from './headers.ts';
import { formatHttpDate } from './http-date.ts';
import { responseDirectives, type ResponseDirectives } from './response-directives.ts';
import type { SetCookiePolicy } from './storability.ts';
import type { ResponseMeta, StoredResponse } from './stored-response.ts';
import { parseVary, varyValues } from './vary.ts';

/** What the stored form depends on besides the response. */
export interface StoredFormPolicy {
  freshness: FreshnessPolicy;
  setCookie: SetCookiePolicy;
  targetedFields: readonly string[];
}

/** When the request that produced a response was sent and the response received, ms. */
export interface Exchange {
  requestTime: number;
  responseTime: number;
}

/** Fields a 304 never updates in the stored response (§3.2, §4.3.4): they describe that message, not the representation. */
const NOT_FRESHENED: ReadonlySet<string> = new Set(['content-length', 'content-range', 'age']);
/**
 * The meta to store for `res`: its end-to-end fields (no Age; no Set-Cookie unless the policy
 * stores it; for a 206 no Content-Range), a Date when the origin sent none (RFC 9110 §6.6.1),
 * freshness, validators, the vary values and tags. No framing field is ever stored: hop-by-hop
 * fields (Transfer-Encoding, Connection and what it names…) describe the origin's connection,
 * and Content-Length is derived from the stored body by whoever writes a reply (responses.ts),
 * so stored bytes can never make a reply's framing disagree with its body.
 */
export function storedMeta(request: Request, res: Response, directives: ResponseDirectives, exchange: Exchange, tags: readonly string[], policy: StoredFormPolicy): ResponseMeta {
  const named = connectionNames(res.headers);
  const keepCookie = policy.setCookie === 'store';
  const headers: HeaderPair[] = [];
  for (const [name, value] of res.headers) {
    if (isHopByHop(name, named) || name === 'age' || name === 'content-length' || (name === 'set-cookie' && !keepCookie) || (res.status === 206 && name === 'content-range')) continue;
    headers.push([name, value]);
  }
  if (!res.headers.has('date')) headers.push(['date', formatHttpDate(exchange.responseTime)]);
  const vary = parseVary(res.headers.get('vary')) as string[];
  return {
    status: res.status,
    headers,
    requestTime: exchange.requestTime,
    responseTime: exchange.responseTime,
    ...freshness(res.status, res.headers, directives, exchange.requestTime, exchange.responseTime, freshnessFor(request, directives, vary, policy.freshness)),
    etag: res.headers.get('etag'),
    lastModified: res.headers.get('last-modified'),
    vary,
    varyValues: varyValues(vary, request.headers),
    tags: [...tags],
  };
}

/**
 * A stored response updated by a 304 (§4.3.4): the 304's fields replace the stored ones and
 * freshness restarts. Undefined when the update now forbids storing (no-store, private, or a
 * Set-Cookie the policy will not store). A Set-Cookie in the 304 replaces the stored one only
 * under `setCookie: 'store'`; under `'strip'` it is left out.
 */
export function freshened(stale: StoredResponse, request: Request, notModified: Headers, exchange: Exchange, policy: StoredFormPolicy): StoredResponse | undefined {
  if (policy.setCookie === 'bypass' && notModified.has('set-cookie')) return undefined;
  const named = connectionNames(notModified);
  const replaced = new Set<string>();
  const updates: HeaderPair[] = [];
  for (const [name, value] of notModified) {
    if (isHopByHop(name, named) || NOT_FRESHENED.has(name) || (name === 'set-cookie' && policy.setCookie !== 'store')) continue;
    replaced.add(name);
    updates.push([name, value]);
  }
  if (!replaced.has('date')) {
    replaced.add('date');
    updates.push(['date', formatHttpDate(exchange.responseTime)]);
  }
  const headers = stale.headers.filter(([name]) => !replaced.has(name)).concat(updates);
  const merged = new Headers(headers);
  const directives = responseDirectives(merged, policy.targetedFields);
  if (directives.cacheControl.has('no-store') || directives.cacheControl.has('private')) return undefined;
  const age = notModified.get('age');
  if (age !== null) merged.set('age', age);
  return {
    ...stale,
    headers,
    requestTime: exchange.requestTime,
    responseTime: exchange.responseTime,
    ...freshness(stale.status, merged, directives, exchange.requestTime, exchange.responseTime, freshnessFor(request, directives, stale.vary, policy.freshness)),
    etag: merged.get('etag'),
    lastModified: merged.get('last-modified'),
  };
}

/** Request fields that say whose response it is: a response to them may be that user's own. */
const CREDENTIAL_FIELDS = ['cookie', 'authorization'] as const;

/**
 * The freshness policy for a response to `request`. A configured default `ttl` stands for
 * "responses that state no freshness are shared for this long", which is wrong for a response
 * to a request carrying credentials: a route that answers `/api/me` with the framework's
 * default headers would have one user's page stored and served to the next visitor (web cache
 * deception). So the default never applies to a request with `Cookie` or `Authorization`,
 * unless the response says it is shared (`public`; `s-maxage` states freshness itself, so the
 * default never applies then anyway) or varies on each such field the request carries (each
 * user then has a variant of their own). The Last-Modified heuristic still applies (a static
 * file is the same for everyone); `Authorization` alone is handled by storability (§3.5).
 */
function freshnessFor(request: Request, directives: ResponseDirectives, vary: readonly string[], policy: FreshnessPolicy): FreshnessPolicy {
  if (policy.defaultTtlMs === undefined || directives.cacheControl.has('public')) return policy;
  const headers = request.headers;
  for (const field of CREDENTIAL_FIELDS) {
    if (headers.has(field) && !vary.includes(field)) return { ...policy, defaultTtlMs: undefined };
  }
  return policy;
}
