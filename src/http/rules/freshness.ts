/**
 * Freshness and storability of a response for a shared cache (RFC 9111 §3, §4.2), computed
 * once when a response is stored or freshened, so that a hit only compares numbers.
 *
 * The {@link Freshness} a stored response carries (with its `responseTime`, on the HTTP cache's
 * clock) is its one freshness record. The engine entry it is stored in has a window of its own,
 * derived from this record by {@link retentionMs} and {@link keptStaleMs}: fresh while the store
 * keeps the response as it was stored, then a grace. The one thing read back from that window
 * is that the engine made the entry stale before it ran out (a soft purge, done by the engine
 * atomically: `expire`, or a soft tag invalidation) and how long ago: {@link staledBy} turns
 * that into this record's terms before the decision (decision.ts) reads it.
 */
import { deltaSeconds } from './cache-control.ts';
import { parseHttpDate } from './http-date.ts';
import type { ResponseDirectives } from './response-directives.ts';

/** Statuses a cache may store and give heuristic freshness to (RFC 9110 §15.1); 206 is stored only with `storePartial`. */
export const HEURISTICALLY_CACHEABLE: ReadonlySet<number> = new Set([200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]);

/** How freshness is assigned where the response states none. */
export interface FreshnessPolicy {
  /** Freshness for a response without explicit freshness, in ms; replaces the Last-Modified heuristic. */
  defaultTtlMs: number | undefined;
  /** Fraction of (Date − Last-Modified) used as heuristic freshness; 0 disables it. */
  heuristicFraction: number;
  /** Cap on heuristic freshness, ms. */
  heuristicMaxMs: number;
}

/** Timing facts about one stored response, all in ms. */
export interface Freshness {
  /** Freshness lifetime. */
  lifetime: number;
  /** Corrected initial age (§4.2.3): the age it already had when it was received. */
  initialAge: number;
  /** `must-revalidate`, `proxy-revalidate` or `no-cache`: never served stale. */
  mustRevalidate: boolean;
  /** False also under `s-maxage`, which implies proxy-revalidate for a client's `max-stale`. */
  clientMayAcceptStale: boolean;
  /** The stale-while-revalidate window (RFC 5861 §3). */
  staleWhileRevalidateMs: number;
  /** The stale-if-error window (RFC 5861 §4). */
  staleIfErrorMs: number;
}

/**
 * Computes freshness per §4.2.1: `s-maxage`, then `max-age`, then `Expires − Date` (an invalid
 * Expires means already expired), then the configured default TTL, then the Last-Modified
 * heuristic where §4.2.2 allows it. An invalid max-age or s-maxage also means stale. The
 * directives come from a targeted field (CDN-Cache-Control) when one applies, and Expires is
 * then ignored (RFC 9213 §2.1).
 */
export function freshness(status: number, headers: Headers, directives: ResponseDirectives, requestTime: number, responseTime: number, policy: FreshnessPolicy): Freshness {
  const { cacheControl } = directives;
  const date = parseHttpDate(headers.get('date')) ?? responseTime;
  const apparentAge = Math.max(0, responseTime - date);
  const correctedAge = ageHeaderSeconds(headers.get('age')) * 1000 + Math.max(0, responseTime - requestTime);
  const initialAge = Math.max(apparentAge, correctedAge);

  const sMaxAge = deltaSeconds(cacheControl, 's-maxage');
  const maxAge = deltaSeconds(cacheControl, 'max-age');
  let lifetime: number;
  if (sMaxAge !== undefined) lifetime = secondsOrZero(sMaxAge);
  else if (maxAge !== undefined) lifetime = secondsOrZero(maxAge);
  else if (directives.useExpires && headers.has('expires')) {
    const expires = parseHttpDate(headers.get('expires'));
    lifetime = expires === undefined ? 0 : Math.max(0, expires - date);
  } else if (!HEURISTICALLY_CACHEABLE.has(status) && !cacheControl.has('public')) lifetime = 0;
  else if (policy.defaultTtlMs !== undefined) lifetime = policy.defaultTtlMs;
  else lifetime = heuristic(headers, date, policy);

  const noCache = cacheControl.has('no-cache');
  const mustRevalidate = noCache || cacheControl.has('must-revalidate') || cacheControl.has('proxy-revalidate');
  return {
    lifetime: noCache ? 0 : lifetime,
    initialAge,
    mustRevalidate,
    clientMayAcceptStale: !mustRevalidate && sMaxAge === undefined,
    staleWhileRevalidateMs: secondsOrZero(deltaSeconds(cacheControl, 'stale-while-revalidate') ?? 0),
    staleIfErrorMs: secondsOrZero(deltaSeconds(cacheControl, 'stale-if-error') ?? 0),
  };
}

/** True when the response states its own freshness (§4.2.1) or is marked `public`. */
export function hasExplicitFreshness(headers: Headers, directives: ResponseDirectives): boolean {
  const { cacheControl } = directives;
  return cacheControl.has('s-maxage') || cacheControl.has('max-age') || (directives.useExpires && headers.has('expires')) || cacheControl.has('public');
}

function heuristic(headers: Headers, date: number, policy: FreshnessPolicy): number {
  const lastModified = parseHttpDate(headers.get('last-modified'));
  if (lastModified === undefined || lastModified >= date) return 0;
  return Math.min((date - lastModified) * policy.heuristicFraction, policy.heuristicMaxMs);
}

function secondsOrZero(seconds: number): number {
  return Number.isNaN(seconds) ? 0 : seconds * 1000;
}

/** The Age field in seconds: the first value of a list, 0 when invalid (§5.1), clamped to 2^31. */
function ageHeaderSeconds(value: string | null): number {
  if (value === null) return 0;
  const first = value.split(',', 1)[0]!.trim();
  return /^\d+$/.test(first) ? Math.min(Number(first), 2147483648) : 0;
}

/** Current age of a stored response at `now` (§4.2.3), ms. */
export function currentAge(stored: Pick<Freshness, 'initialAge'> & { responseTime: number }, now: number): number {
  return stored.initialAge + Math.max(0, now - stored.responseTime);
}

/** A freshness record and when its response was received: what a decision and {@link retentionMs} read. */
export type Timed = Freshness & { responseTime: number };

/**
 * How long a stored response is kept once it is stale, so that it can still be revalidated or
 * served stale: the longest of its stale windows and `retainStaleMs`. The engine entry's grace.
 */
export function keptStaleMs(stored: Freshness, retainStaleMs: number): number {
  return Math.max(stored.staleWhileRevalidateMs, stored.staleIfErrorMs, retainStaleMs);
}

/**
 * How long, from `now`, the store keeps a stored response as it was stored: what is left of
 * its freshness (at least 1 ms), then {@link keptStaleMs}. The engine entry's ttl, derived here
 * and nowhere else; its grace is {@link keptStaleMs}, so that a response the engine marks
 * stale (a soft purge: `expire`, or a soft tag invalidation) is kept for that long from then.
 */
export function retentionMs(stored: Timed, now: number, retainStaleMs: number): number {
  return Math.max(1, stored.lifetime - currentAge(stored, now)) + keptStaleMs(stored, retainStaleMs);
}

/**
 * `stored` turned stale as of `now` (a soft purge): its lifetime cut just below its current
 * age, everything else kept; undefined when it is stale already. Stale by 1 ms, not 0: a
 * staleness of 0 would still fit a stale-while-revalidate of 0 (decision.ts).
 */
export function staleAsOf<T extends Timed>(stored: T, now: number): T | undefined {
  const age = currentAge(stored, now);
  return age < stored.lifetime ? { ...stored, lifetime: age - 1 } : undefined;
}

/**
 * `stored` as the decision must judge it at `now` once the engine says its entry has been stale
 * for `staleMs` (a soft purge by URL or tag made it so; a duration, so that the engine's clock
 * and this cache's need not agree on the time): stale since then ({@link staleAsOf}), or as it
 * is when it was stale by its own record already.
 */
export function staledBy<T extends Timed>(stored: T, staleMs: number, now: number): T {
  return staleAsOf(stored, now - staleMs) ?? stored;
}
