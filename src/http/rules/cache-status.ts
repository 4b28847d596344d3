/** The Cache-Status field (RFC 9211) and the optional X-Cache shorthand. */

/** Why a request went forward to the origin (RFC 9211 §2.2). */
export type ForwardReason = 'bypass' | 'method' | 'uri-miss' | 'vary-miss' | 'miss' | 'request' | 'stale' | 'partial';

/** What this cache did for one response. */
export interface CacheOutcome {
  /** Answered from the cache without contacting the origin. */
  hit?: boolean;
  /** Why the request went forward, when it did. */
  fwd?: ForwardReason;
  /** The status the origin answered the forwarded request with. */
  fwdStatus?: number;
  /** Remaining freshness of the response served, ms (negative when stale). */
  ttl?: number;
  /** The response was stored. */
  stored?: boolean;
  /** The request shared another request's forward (RFC 9211 `collapsed`). */
  collapsed?: boolean;
  /** A stale response was served (stale-while-revalidate, stale-if-error or the client's max-stale). */
  stale?: boolean;
  /** Free-form detail, e.g. the reason a response was not stored. */
  detail?: string;
}

/** Formats this cache's Cache-Status list member, e.g. `cachette; hit; ttl=42`. */
export function formatCacheStatus(name: string, outcome: CacheOutcome, key: string | undefined): string {
  let member = name;
  if (outcome.hit) member += '; hit';
  if (outcome.fwd) member += `; fwd=${outcome.fwd}`;
  if (outcome.fwdStatus !== undefined) member += `; fwd-status=${outcome.fwdStatus}`;
  if (outcome.ttl !== undefined) member += `; ttl=${Math.floor(outcome.ttl / 1000)}`;
  if (outcome.stored) member += '; stored';
  if (outcome.collapsed) member += '; collapsed';
  if (key !== undefined) member += `; key=${sfString(key)}`;
  if (outcome.detail) member += `; detail=${sfString(outcome.detail)}`;
  return member;
}

/** The X-Cache value for an outcome: HIT, STALE, MISS or BYPASS. */
export function xCacheValue(outcome: CacheOutcome): string {
  if (outcome.stale) return 'STALE';
  if (outcome.hit) return 'HIT';
  if (outcome.fwd === 'bypass' || outcome.fwd === 'method') return 'BYPASS';
  return 'MISS';
}

/** A structured-field string (RFC 8941 §3.3.3): printable ASCII, with `"` and `\` escaped. */
function sfString(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
}
