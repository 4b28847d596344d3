/**
 * Validators: client conditional requests answered from a stored response (RFC 9110 §13.1,
 * §13.2), and which stored response a 304 from the origin may update (RFC 9111 §4.3.4).
 */
import { parseHttpDate } from './http-date.ts';

/** The validators of a stored response. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/**
 * True when the request's `If-None-Match` (weak comparison, as §13.1.2 requires for GET and
 * HEAD) or — only without it — `If-Modified-Since` says the client already has this response.
 * `If-None-Match: *` matches any stored response, with or without an ETag (a current
 * representation exists). An unparsable If-Modified-Since is ignored, as §13.1.3 says.
 * `modifiedFallback` gives the time to judge If-Modified-Since by when there is no
 * Last-Modified (a stored response's Date, RFC 9111 §4.3.2); it is called only then.
 */
export function notModified(headers: Headers, validators: Validators, modifiedFallback?: () => string | null): boolean {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    if (ifNoneMatch.trim() === '*') return true;
    if (validators.etag === null) return false;
    const mine = opaque(validators.etag);
    return ifNoneMatch.split(',').some((tag) => opaque(tag.trim()) === mine);
  }
  const ifModifiedSince = headers.get('if-modified-since');
  if (ifModifiedSince === null) return false;
  const lastModified = validators.lastModified ?? modifiedFallback?.() ?? null;
  if (lastModified === null) return false;
  const since = parseHttpDate(ifModifiedSince);
  const modified = parseHttpDate(lastModified);
  return since !== undefined && modified !== undefined && modified <= since;
}

/** The validators a response carries in its fields. */
export function validatorsOf(headers: Headers): Validators {
  return { etag: headers.get('etag'), lastModified: headers.get('last-modified') };
}

/**
 * True when a 304 may update the stored response `stored` (RFC 9111 §4.3.4). A strong ETag in
 * the 304 must be the stored one exactly (strong comparison); a weak one must match it weakly;
 * without an ETag, a Last-Modified must name the same instant. A 304 that carries no validator
 * answers the validators the cache sent, which came from `stored`, so it selects it.
 */
export function selectsForUpdate(notModifiedHeaders: Headers, stored: Validators): boolean {
  const { etag, lastModified } = validatorsOf(notModifiedHeaders);
  if (etag !== null) {
    if (stored.etag === null) return false;
    const theirs = etag.trim();
    const mine = stored.etag.trim();
    return theirs.startsWith('W/') ? opaque(theirs) === opaque(mine) : theirs === mine;
  }
  if (lastModified !== null) {
    if (stored.lastModified === null) return false;
    const theirs = parseHttpDate(lastModified);
    const mine = parseHttpDate(stored.lastModified);
    // Two unparsable dates can still be the same validator, byte for byte.
    return theirs !== undefined && mine !== undefined ? theirs === mine : lastModified.trim() === stored.lastModified.trim();
  }
  return true;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
