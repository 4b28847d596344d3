/**
 * What the HTTP cache keeps per response. It goes through the engine (createCache) as a CBOR
 * value: CBOR carries the body as a byte string, with no base64 and no copy per hit.
 *
 * Stored bytes are untrusted (docs/architecture.md#failure-trust-and-reporting): whoever can write to the store
 * can write an entry of the right shape with a header that would make every hit throw, or a
 * status no response may have. {@link storedResponseProblem} checks each entry on read.
 */
import type { Freshness } from './freshness.ts';
import { isFieldName, isHopByHop, type HeaderPair } from './headers.ts';

/** Everything known about a stored response except its body. */
export interface ResponseMeta extends Freshness {
  status: number;
  /**
   * End-to-end header lines, in order, names lowercase: never a framing field (no Content-Length,
   * Transfer-Encoding, Connection…: replies derive their length from the body), never Age
   * (computed per reply); Set-Cookie only under `setCookie: 'store'`.
   */
  headers: HeaderPair[];
  /** When the request that produced it was sent and the response received (the cache's clock), ms. */
  requestTime: number;
  responseTime: number;
  /** Validators, copied out of `headers` so a hit needs no header scan. */
  etag: string | null;
  lastModified: string | null;
  /** The lowercase field names its `Vary` lists, and the (normalised) request values it was stored for. */
  vary: string[];
  varyValues: Array<string | null>;
  /** Surrogate keys for `purge({ tag })`. */
  tags: string[];
}

/** The byte spans a stored partial response (206) holds of its representation. */
export interface PartialContent {
  /** The representation's complete length, from Content-Range. */
  length: number;
  /** `[start, end)` spans in ascending order, not touching; `body` is their bytes concatenated. */
  spans: Array<[start: number, end: number]>;
}

/** A stored response: its meta and its body. */
export interface StoredResponse extends ResponseMeta {
  body: Uint8Array;
  /** Present on a stored 206 (`storePartial`): which parts of the representation `body` holds. */
  partial?: PartialContent;
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
  /** The variants stored in this epoch and until when each may live, for the per-URL cap (absent in markers written before the cap existed). */
  variants?: Array<[digest: string, until: number]>;
}

/** Files a variant under a language it answers (language selection, vary.ts): the variant key it points to. */
export interface LanguageAlias {
  variantKey: string;
}

/** True when `value` has the shape of a stored response (a payload written by anything else is a miss). */
export function isStoredResponse(value: unknown): value is StoredResponse {
  const entry = value as StoredResponse | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.status === 'number' &&
    Array.isArray(entry.headers) &&
    entry.body instanceof Uint8Array &&
    typeof entry.lifetime === 'number' &&
    typeof entry.responseTime === 'number' &&
    Array.isArray(entry.vary) &&
    Array.isArray(entry.varyValues) &&
    Array.isArray(entry.tags)
  );
}

/** True when `value` is a {@link VaryMarker} whose field names can be looked up (stored bytes are untrusted). */
export function isVaryMarker(value: unknown): value is VaryMarker {
  const marker = value as VaryMarker | null;
  return (
    typeof marker === 'object' && marker !== null && Array.isArray(marker.varyBy) && typeof marker.epoch === 'string' && marker.varyBy.every((name) => typeof name === 'string' && isFieldName(name))
  );
}

/** True when `value` is a {@link LanguageAlias}. */
export function isLanguageAlias(value: unknown): value is LanguageAlias {
  const alias = value as LanguageAlias | null;
  return typeof alias === 'object' && alias !== null && typeof alias.variantKey === 'string';
}

/** A stored field name: a token (RFC 9110 §5.1), lowercase as the cache writes it, so a check by name cannot be dodged by case. */
const STORED_FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Characters a field value may never hold (RFC 9110 §5.5): CR, LF and NUL. */
const FORBIDDEN_IN_VALUE = /[\r\n\0]/;
/** Statuses a stored response may have: final ones a Response can carry; 304 is never stored. */
const isStoredStatus = (status: number) => Number.isInteger(status) && status >= 200 && status <= 599 && status !== 304;
const isTime = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
const isStringList = (list: unknown[]) => list.every((item) => typeof item === 'string');

/**
 * Why a stored response cannot be served as it is (a header no platform would send, a framing
 * field, a status a response may not have, numbers that are not numbers), or undefined when it
 * is sound. Such an entry is a corrupt miss: it would otherwise fail every hit until it expired,
 * or (a Content-Length that disagrees with the body, a Transfer-Encoding, a Connection) make a
 * reply's framing lie, so that bytes of the body answer a keep-alive connection's next request.
 *
 * Entries written before framing fields were left out carry a Content-Length equal to their
 * body's: that one is sound, and is removed from the entry here (each reply derives its own).
 * Entries written before the stale windows were named in full carry them as `swr` and `sie`:
 * they are read under their names here.
 */
export function storedResponseProblem(entry: StoredResponse): string | undefined {
  if (!isStoredStatus(entry.status)) return `status ${String(entry.status)} cannot be served`;
  let legacyLength = -1;
  for (let i = 0; i < entry.headers.length; i++) {
    const pair = entry.headers[i];
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return 'a header line is not a [name, value] pair of strings';
    const name = pair[0];
    // On every hit: the regular expressions inline, no call per header but the Set lookup.
    if (!STORED_FIELD_NAME.test(name)) return `bad header name ${JSON.stringify(name)}`;
    if (FORBIDDEN_IN_VALUE.test(pair[1])) return `the value of "${name}" holds CR, LF or NUL`;
    if (name === 'content-length') {
      if (legacyLength !== -1 || entry.partial !== undefined || pair[1] !== String(entry.body.byteLength)) return 'a content-length that disagrees with the body';
      legacyLength = i;
    } else if (isHopByHop(name, undefined)) {
      return `the framing field "${name}"`;
    }
  }
  if (entry.staleWhileRevalidateMs === undefined && entry.staleIfErrorMs === undefined) readLegacyWindows(entry);
  if (!isTime(entry.requestTime) || !isTime(entry.responseTime) || !isTime(entry.lifetime) || !isTime(entry.initialAge) || !isTime(entry.staleWhileRevalidateMs) || !isTime(entry.staleIfErrorMs))
    return 'a time is not a finite number';
  if (!isStringList(entry.vary) || !isStringList(entry.tags) || entry.varyValues.length !== entry.vary.length) return 'bad vary or tag lists';
  if ((entry.status === 206) !== (entry.partial !== undefined)) return 'a 206 must describe its spans, and only a 206 may';
  if (entry.partial !== undefined && !partialIsSound(entry.partial, entry.body.byteLength)) return 'the partial spans do not match the body';
  if (legacyLength !== -1) entry.headers.splice(legacyLength, 1);
  return undefined;
}

/** Moves the stale windows of an entry an earlier version wrote (`swr`, `sie`) to their names. */
function readLegacyWindows(entry: StoredResponse): void {
  const legacy = entry as StoredResponse & { swr?: number; sie?: number };
  entry.staleWhileRevalidateMs = legacy.swr as number;
  entry.staleIfErrorMs = legacy.sie as number;
  delete legacy.swr;
  delete legacy.sie;
}

function partialIsSound(partial: PartialContent, bodyBytes: number): boolean {
  if (!Number.isSafeInteger(partial.length) || !Array.isArray(partial.spans)) return false;
  let covered = 0;
  let previousEnd = -1;
  for (const span of partial.spans) {
    if (!Array.isArray(span)) return false;
    const [start, end] = span;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= previousEnd || end <= start || end > partial.length) return false;
    covered += end - start;
    previousEnd = end;
  }
  return covered === bodyBytes;
}
