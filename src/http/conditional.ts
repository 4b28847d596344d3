/** Client conditional requests answered from a stored response (RFC 9110 §13.1, §13.2). */
import { parseHttpDate } from './http-date.ts';

/** The validators of a stored response. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/**
 * True when the request's `If-None-Match` (weak comparison, as §13.1.2 requires for GET and
 * HEAD) or — only without it — `If-Modified-Since` says the client already has this response.
 * An unparsable If-Modified-Since is ignored, as §13.1.3 says.
 */
export function notModified(headers: Headers, v: Validators): boolean {
  const inm = headers.get('if-none-match');
  if (inm !== null) {
    if (v.etag === null) return false;
    if (inm.trim() === '*') return true;
    const mine = opaque(v.etag);
    return inm.split(',').some((tag) => opaque(tag.trim()) === mine);
  }
  const ims = headers.get('if-modified-since');
  if (ims === null || v.lastModified === null) return false;
  const since = parseHttpDate(ims);
  const modified = parseHttpDate(v.lastModified);
  return since !== undefined && modified !== undefined && modified <= since;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
