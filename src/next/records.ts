/**
 * What the handlers store, and the checks that what comes back is that: bytes read from a shared
 * store are untrusted (docs/architecture.md#failure-trust-and-reporting), and a value of the wrong shape handed
 * to Next would fail the render (Next throws an invariant error on a FETCH value under a page's
 * key, or reads `html` from whatever it is given). Anything that does not check out is a miss.
 */
import { readMarks, type BuildMarks } from './builds.ts';
import type { CacheControl, IncrementalCacheValue } from './next-types.ts';

/** A `"use cache"` entry at rest: Next's metadata and the bytes its stream delivered, and who stored it. */
export interface UseCacheRecord extends BuildMarks {
  tags: string[];
  stale: number;
  timestamp: number;
  expire: number;
  revalidate: number;
  body: Uint8Array;
}

/** An incremental cache entry at rest, and who stored it. */
export interface IncrementalRecord extends BuildMarks {
  /** When it was stored, on the writer's clock as Next reads it (`performance.timeOrigin + performance.now()`: Next's ISR timing is built on it). */
  lastModified: number;
  value: IncrementalCacheValue;
  cacheControl: CacheControl | undefined;
  /** The tags it was stored under (FETCH: those of the `fetch` call). */
  tags: string[];
}

/** The `"use cache"` record in `stored`, or undefined when it is not one. */
export function readUseCacheRecord(stored: unknown): UseCacheRecord | undefined {
  if (!isObject(stored)) return undefined;
  const { tags, stale, timestamp, expire, revalidate, body } = stored;
  if (!isStringArray(tags) || !(body instanceof Uint8Array)) return undefined;
  if (![stale, timestamp, expire, revalidate].every(isFiniteNumber)) return undefined;
  const marks = readMarks(stored);
  return marks && ({ tags, stale, timestamp, expire, revalidate, body, ...marks } as UseCacheRecord);
}

/**
 * The incremental record in `stored` when its value is of the kind the caller reads (`FETCH` for
 * a fetch, the page's kind for a page), or undefined.
 */
export function readIncrementalRecord(stored: unknown, kind: string): IncrementalRecord | undefined {
  if (!isObject(stored)) return undefined;
  const { lastModified, value, cacheControl, tags } = stored;
  if (!isFiniteNumber(lastModified) || !isStringArray(tags) || !isObject(value) || !valueFits(value, kind)) return undefined;
  if (cacheControl !== undefined && !isCacheControl(cacheControl)) return undefined;
  const marks = readMarks(stored);
  return marks && { lastModified, value: value as IncrementalCacheValue, cacheControl, tags, ...marks };
}

/**
 * Turns the byte fields Next reads back (a page's RSC payload and segments, a route handler's
 * body) into the platform's own bytes: Next tests them with `Buffer.isBuffer`, and a store may
 * hand back plain Uint8Arrays (memory, SQLite) where Valkey hands back Buffers.
 */
export function withPlatformBytes(value: IncrementalCacheValue, convert: (bytes: Uint8Array) => Uint8Array): IncrementalCacheValue {
  switch (value.kind) {
    case 'APP_PAGE': {
      const segments = value.segmentData as Map<string, Uint8Array> | undefined;
      return {
        ...value,
        rscData: value.rscData && convert(value.rscData as Uint8Array),
        segmentData: segments && new Map([...segments].map(([path, bytes]) => [path, convert(bytes)])),
      };
    }
    case 'APP_ROUTE':
      return { ...value, body: convert(value.body as Uint8Array) };
    default:
      return value;
  }
}

/** True when `value` is a well-formed value of a kind Next reads under a key of `kind`. */
function valueFits(value: Record<string, unknown>, kind: string): boolean {
  switch (value.kind) {
    case 'FETCH':
      return kind === 'FETCH' && isObject(value.data) && typeof value.data.body === 'string' && isObject(value.data.headers) && isFiniteNumber(value.revalidate);
    case 'APP_PAGE':
      return (
        kind === 'APP_PAGE' &&
        typeof value.html === 'string' &&
        optional(value.rscData, isBytes) &&
        optional(value.segmentData, isSegmentData) &&
        optional(value.postponed, isString) &&
        responseFields(value)
      );
    case 'PAGES':
      return kind === 'PAGES' && typeof value.html === 'string' && isObject(value.pageData) && responseFields(value);
    case 'APP_ROUTE':
      return kind === 'APP_ROUTE' && isBytes(value.body) && isFiniteNumber(value.status) && isObject(value.headers);
    case 'REDIRECT':
      return kind === 'PAGES' && isObject(value.props);
    default:
      return false;
  }
}

function responseFields(value: Record<string, unknown>): boolean {
  return optional(value.headers, isObject) && optional(value.status, isFiniteNumber);
}

function isCacheControl(value: unknown): value is CacheControl {
  return isObject(value) && (value.revalidate === false || isFiniteNumber(value.revalidate)) && optional(value.expire, isFiniteNumber);
}

function isSegmentData(value: unknown): boolean {
  if (!(value instanceof Map)) return false;
  for (const [path, bytes] of value) if (typeof path !== 'string' || !isBytes(bytes)) return false;
  return true;
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}
