/**
 * What to do with a stored response for one request (RFC 9111 §4.2, §4.2.4, §5.2.1; RFC 5861):
 * serve it, serve it stale, serve it stale while it is refreshed, or go to the origin. Pure:
 * numbers in, a verdict out.
 */
import type { RequestDirectives } from './cache-control.ts';
import { currentAge, type Timed } from './freshness.ts';

/** What the stored response is good for. */
export type Action =
  /** Fresh and acceptable to the client. */
  | 'hit'
  /** Stale, and the client's max-stale accepts it. */
  | 'stale-hit'
  /** Stale within stale-while-revalidate: serve it, refresh it in the background. */
  | 'stale-while-revalidate'
  /** The client's directives ask for the origin (no-cache, max-age, min-fresh). */
  | 'forward-request'
  /** Too stale to serve. */
  | 'forward-stale';

/** A verdict with the timing it was based on, ms. */
export interface Decision {
  action: Action;
  /** Current age (§4.2.3). */
  age: number;
  /** Freshness left; negative once stale. */
  remaining: number;
}

/**
 * Decides for a stored response `entry` at `now`. `mayRevalidateLater` says whether the origin
 * can still be called after the client was answered (a middleware's `next` cannot): without
 * it, stale-while-revalidate falls back to a revalidation in the foreground.
 */
export function decide(entry: Timed, requestDirectives: RequestDirectives, now: number, mayRevalidateLater: boolean): Decision {
  const age = currentAge(entry, now);
  const remaining = entry.lifetime - age;
  const ageAccepted = requestDirectives.maxAge === undefined || age <= requestDirectives.maxAge;
  if (remaining > 0 && !requestDirectives.noCache && ageAccepted && (requestDirectives.minFresh === undefined || remaining >= requestDirectives.minFresh)) return { action: 'hit', age, remaining };
  if (remaining <= 0 && !requestDirectives.noCache && !entry.mustRevalidate) {
    const staleness = -remaining;
    // A request max-age still bounds the age of what max-stale accepts (§5.2.1.1).
    if (requestDirectives.maxStale !== undefined && entry.clientMayAcceptStale && staleness <= requestDirectives.maxStale && ageAccepted) return { action: 'stale-hit', age, remaining };
    if (staleness <= entry.staleWhileRevalidateMs && ageAccepted && mayRevalidateLater) return { action: 'stale-while-revalidate', age, remaining };
  }
  return { action: remaining > 0 || requestDirectives.noCache ? 'forward-request' : 'forward-stale', age, remaining };
}

/**
 * True when `stale` may stand in for a failed origin (RFC 5861 §4): within the response's own
 * stale-if-error window, or within the request's where the response lets clients accept
 * stale at all (not under must-revalidate, proxy-revalidate, no-cache or s-maxage). A
 * response still fresh (forwarded for the request's no-cache, max-age or min-fresh) may too.
 */
export function mayServeOnError(stale: Timed, requestDirectives: RequestDirectives, now: number): boolean {
  if (stale.mustRevalidate) return false;
  const staleness = currentAge(stale, now) - stale.lifetime;
  const window = Math.max(stale.staleIfErrorMs, stale.clientMayAcceptStale ? (requestDirectives.staleIfError ?? 0) : 0);
  return staleness < 0 || (window > 0 && staleness <= window);
}
