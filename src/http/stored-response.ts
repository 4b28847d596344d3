/**
 * What the HTTP cache keeps per response. It goes through the engine (createCache) as a CBOR
 * value: CBOR carries the body as a byte string, with no base64 and no copy per hit.
 */
import type { Freshness } from './freshness.ts';
import type { HeaderPair } from './headers.ts';

/** Everything known about a stored response except its body. */
export interface ResponseMeta extends Freshness {
  status: number;
  /** End-to-end header lines, in order, without Age (computed per reply) and without Set-Cookie. */
  headers: HeaderPair[];
  /** When the request that produced it was sent and the response received (the cache's clock), ms. */
  requestTime: number;
  responseTime: number;
  /** Validators, copied out of `headers` so a hit needs no header scan. */
  etag: string | null;
  lastModified: string | null;
  /** The lowercase field names its `Vary` lists, and the request values it was stored for. */
  vary: string[];
  varyValues: Array<string | null>;
  /** Surrogate keys for `purge({ tag })`. */
  tags: string[];
}

/** A stored response: its meta and its complete body. */
export interface StoredResponse extends ResponseMeta {
  body: Uint8Array;
}

/**
 * Kept under the primary key of a URL whose responses vary: the field names that select a
 * variant, and an epoch that is part of every variant key. Deleting the marker (purge,
 * invalidation) orphans every variant at once, because a new marker gets a new epoch.
 */
export interface VaryMarker {
  varyBy: string[];
  epoch: string;
  /** Store-clock time until which some variant may live, so the marker never dies first. */
  until: number;
}

/** True when `v` has the shape of a stored response (a payload written by anything else is a miss). */
export function isStoredResponse(v: unknown): v is StoredResponse {
  const o = v as StoredResponse | null;
  return typeof o === 'object' && o !== null && typeof o.status === 'number' && Array.isArray(o.headers)
    && o.body instanceof Uint8Array && typeof o.lifetime === 'number' && typeof o.responseTime === 'number'
    && Array.isArray(o.vary) && Array.isArray(o.varyValues) && Array.isArray(o.tags);
}

/** True when `v` is a {@link VaryMarker}. */
export function isVaryMarker(v: unknown): v is VaryMarker {
  const o = v as VaryMarker | null;
  return typeof o === 'object' && o !== null && Array.isArray(o.varyBy) && typeof o.epoch === 'string';
}
