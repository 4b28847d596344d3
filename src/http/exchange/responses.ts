/**
 * Building the responses the cache sends: from stored meta (hits, 304s, byte ranges, HEAD),
 * from the origin's own response (headers cleaned, Cache-Status added), and the cache's own
 * bodiless answers (504 for only-if-cached, 502 for an origin answer it cannot use).
 */
import { formatCacheStatus, xCacheValue, type CacheOutcome } from '../rules/cache-status.ts';
import { notModified } from '../rules/conditional.ts';
import { endToEndHeaders, type HeaderPair } from '../rules/headers.ts';
import { formatHttpDate } from '../rules/http-date.ts';
import { badStatusMessage, discardBody, isFinalStatus } from './origin-call.ts';
import { idleBounded } from './idle-read.ts';
import { formatContentRange, ifRangeHolds, resolveRange, unsatisfiedRange, type RangeSpec, type Span } from '../rules/ranges.ts';
import type { ResponseMeta } from '../rules/stored-response.ts';

/** Statuses whose responses never have a body (RFC 9110 §6.4.1), or whose body no client reads (101). */
const NULL_BODY_STATUS: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** How this cache names itself in the fields it adds. */
export interface ResponderOptions {
  name: string;
  xCache: boolean;
  cacheStatusKey: boolean;
  /** The origin's body-idle bound, ms, applied to origin bodies passed through unshared. */
  originIdleTimeoutMs: number;
  /** The tag field a CDN reads, from a stored response's tags (`cdnTagHeader`, src/cdn/tag-rules.ts); undefined when off. */
  cdnTagField?: ((tags: readonly string[]) => HeaderPair | undefined) | undefined;
}

/** A stored body: the bytes, or a stream of them when they are still arriving from the origin. */
export type StoredBody = Uint8Array | (() => ReadableStream<Uint8Array>);

/** How one response from stored meta is sent. */
export interface StoredReply {
  outcome: CacheOutcome;
  /** Current age, ms. */
  age: number;
  /** The primary key (for Cache-Status `key` when asked). */
  key: string;
  body: StoredBody;
  /** The single byte range the client asked for, if any. */
  range?: RangeSpec | undefined;
  /** The length of a body that is still arriving, when the origin declared it (a body in bytes has its own). */
  length?: number | undefined;
  /** Fields for this client only (the cookie a revalidation set for it). */
  extra?: HeaderPair[] | undefined;
}

/**
 * A stored response as bytes, for a binding that writes bytes itself (the proxy, Express, the
 * Node server): the same status, fields and body as the Response it stands for, without the
 * cost of building a fetch Response and streaming its body back out.
 */
export interface BytesAnswer {
  status: number;
  /** Lowercase field name and value pairs, in order (Set-Cookie and Cache-Status may repeat). */
  headers: HeaderPair[];
  /** The body; null for HEAD and for statuses without one. */
  body: Uint8Array | null;
}

/** Builds every response the cache sends, with Age and Cache-Status. */
export class Responder {
  constructor(private readonly options: ResponderOptions) {}

  /**
   * A response from stored meta: a 304 when the client's validators match (RFC 9110 §13.1;
   * If-Modified-Since is judged against Date when there is no Last-Modified, RFC 9111 §4.3.2),
   * a 206 or 416 for a byte range of a complete stored 200, no body for HEAD.
   */
  stored(meta: ResponseMeta, request: Request, reply: StoredReply): Response {
    const { outcome, age, key, body, range } = reply;
    if (this.clientHasIt(request, meta)) return this.notModified(meta, outcome, age, key);
    if (range !== undefined && meta.status === 200 && body instanceof Uint8Array && request.method === 'GET' && this.rangeApplies(request, meta)) {
      const span = resolveRange(range, body.byteLength);
      return span === undefined ? this.unsatisfiable(meta, outcome, age, key, body.byteLength) : this.partial(meta, outcome, age, key, body.subarray(span[0], span[1]), span, body.byteLength);
    }
    // The hot path: a header list handed to Response as is costs one Headers construction,
    // where building a Headers object and then setting fields on it costs several.
    const headers = this.#storedHeaders(meta, reply, body instanceof Uint8Array ? body.byteLength : reply.length);
    const content = request.method === 'HEAD' || NULL_BODY_STATUS.has(meta.status) ? null : body instanceof Uint8Array ? body : body();
    // Stored bodies are never backed by a SharedArrayBuffer; the DOM typings cannot know that.
    return new Response(content as BodyInit | null, { status: meta.status, headers });
  }

  /**
   * {@link stored} as bytes, when the answer is the stored body whole or a 304; undefined when
   * it is a byte range or a 416 (rare: the caller builds the Response then).
   */
  storedBytes(meta: ResponseMeta, request: Request, reply: StoredReply & { body: Uint8Array }): BytesAnswer | undefined {
    const { outcome, age, key } = reply;
    if (this.clientHasIt(request, meta)) return { status: 304, headers: this.#notModifiedHeaders(meta, outcome, age, key), body: null };
    if (reply.range !== undefined && meta.status === 200 && request.method === 'GET') return undefined;
    const bodiless = request.method === 'HEAD' || NULL_BODY_STATUS.has(meta.status);
    return { status: meta.status, headers: this.#storedHeaders(meta, reply, reply.body.byteLength), body: bodiless ? null : reply.body };
  }

  /**
   * The stored fields of a reply, with the body's Content-Length (never stored: the length
   * always comes from the bytes sent, so stored bytes cannot forge a reply's framing; a HEAD
   * gets the GET's length, RFC 9110 §8.6), Age, Cache-Status, X-Cache when asked, and the
   * client's own extra fields.
   */
  #storedHeaders(meta: ResponseMeta, reply: StoredReply, length: number | undefined): HeaderPair[] {
    const field = this.options.cdnTagField?.(meta.tags);
    // The field made from the tags replaces the origin's own, which may pass the CDN's bounds.
    const headers: HeaderPair[] = field === undefined ? meta.headers.slice() : [...meta.headers.filter(([name]) => name !== field[0]), field];
    if (length !== undefined && !NULL_BODY_STATUS.has(meta.status)) headers.push(['content-length', String(length)]);
    headers.push(['age', ageSeconds(reply.age)], ['cache-status', this.status(reply.outcome, reply.key)]);
    if (this.options.xCache) headers.push(['x-cache', xCacheValue(reply.outcome)]);
    if (reply.extra) headers.push(...reply.extra);
    return headers;
  }

  /**
   * True when the client's conditional request says it already has `meta`'s representation
   * (RFC 9110 §13.1; If-Modified-Since is judged against Date when there is no Last-Modified,
   * RFC 9111 §4.3.2).
   */
  clientHasIt(request: Request, meta: ResponseMeta): boolean {
    return notModified(request.headers, meta, () => storedDate(meta));
  }

  /** True unless the request's If-Range says the client wants the whole representation instead (RFC 9110 §13.1.5). */
  rangeApplies(request: Request, meta: ResponseMeta): boolean {
    const ifRange = request.headers.get('if-range');
    return ifRange === null || ifRangeHolds(ifRange, { etag: meta.etag, lastModified: meta.lastModified, date: headerOf(meta.headers, 'date') });
  }

  /** A 206 carrying `bytes` at `span` of a representation of `length` bytes, with the stored fields. */
  partial(meta: ResponseMeta, outcome: CacheOutcome, age: number, key: string, bytes: Uint8Array, span: Span, length: number): Response {
    const headers = withoutFields(meta.headers, RANGE_FIELDS);
    headers.push(['content-range', formatContentRange(span, length)], ['content-length', String(bytes.byteLength)]);
    headers.push(['age', ageSeconds(age)], ['cache-status', this.status(outcome, key)]);
    if (this.options.xCache) headers.push(['x-cache', xCacheValue(outcome)]);
    return new Response(bytes as BodyInit, { status: 206, headers });
  }

  /** A 304 from stored meta: its fields, without the ones describing a body that is not sent. */
  notModified(meta: ResponseMeta, outcome: CacheOutcome, age: number, key: string): Response {
    return new Response(null, { status: 304, headers: this.#notModifiedHeaders(meta, outcome, age, key) });
  }

  #notModifiedHeaders(meta: ResponseMeta, outcome: CacheOutcome, age: number, key: string): HeaderPair[] {
    // Stored fields never include Content-Length, so none describes the body a 304 leaves out.
    const headers = meta.headers.slice();
    headers.push(['age', ageSeconds(age)], ['cache-status', this.status(outcome, key)]);
    if (this.options.xCache) headers.push(['x-cache', xCacheValue(outcome)]);
    return headers;
  }

  /**
   * The origin's response on its way to the client that caused the forward: its own fields
   * (Set-Cookie included) without hop-by-hop ones, `body` in place of its own when given, and
   * `age` when it was stored. Its own body is bounded by `originIdleTimeout` on the way (a
   * given `body` is a shared one, bounded where it is read).
   */
  fromOrigin(response: Response, request: Request, outcome: CacheOutcome, key: string | undefined, body?: ReadableStream<Uint8Array> | null, age?: number): Response {
    const headers = endToEndHeaders(response.headers);
    this.annotate(headers, outcome, age, key);
    const bodiless = request.method === 'HEAD' || NULL_BODY_STATUS.has(response.status);
    const content = bodiless ? null : body !== undefined ? body : response.body && idleBounded(response.body, this.options.originIdleTimeoutMs);
    return new Response(content, { status: response.status, statusText: response.statusText, headers });
  }

  /**
   * `response` (from {@link fromOrigin}) with the CDN tag field of `tags` in place of the
   * origin's own, when `cdnTagHeader` is on: the response is being stored with those tags.
   */
  tagged(response: Response, tags: readonly string[]): Response {
    const field = this.options.cdnTagField?.(tags);
    if (field !== undefined) response.headers.set(field[0], field[1]);
    return response;
  }

  /**
   * An origin response passed through (a bypass, an unsafe method): a protocol switch (101)
   * untouched, a status no response may have answered 502 with the reason, anything else
   * with its hop-by-hop fields removed and Cache-Status added.
   */
  relay(response: Response, request: Request, outcome: CacheOutcome, key: string | undefined): Response {
    if (response.status === 101) return response;
    if (isFinalStatus(response.status)) return this.fromOrigin(response, request, { ...outcome, fwdStatus: response.status }, key);
    discardBody(response);
    return this.synthetic(502, key, { ...outcome, fwdStatus: response.status, detail: 'origin-status' }, badStatusMessage(response.status));
  }

  /** A bodiless answer of the cache's own, with a short text explaining it when there is one to give. */
  synthetic(status: number, key: string | undefined, outcome: CacheOutcome, message?: string): Response {
    const headers = new Headers();
    this.annotate(headers, outcome, undefined, key);
    if (message === undefined) return new Response(null, { status, headers });
    headers.set('content-type', 'text/plain; charset=utf-8');
    return new Response(`${message}\n`, { status, headers });
  }

  /** Sets Age (when served from or stored in the cache), appends this cache's Cache-Status member, and X-Cache when asked. */
  annotate(headers: Headers, outcome: CacheOutcome, age: number | undefined, key: string | undefined): void {
    if (age !== undefined) headers.set('age', ageSeconds(age));
    headers.append('cache-status', this.status(outcome, key));
    if (this.options.xCache) headers.set('x-cache', xCacheValue(outcome));
  }

  /** This cache's Cache-Status member for an outcome. */
  status(outcome: CacheOutcome, key: string | undefined): string {
    return formatCacheStatus(this.options.name, outcome, this.options.cacheStatusKey ? key : undefined);
  }

  /** A 416 for a range beyond the stored representation (RFC 9110 §15.5.17). */
  unsatisfiable(meta: ResponseMeta, outcome: CacheOutcome, age: number, key: string, length: number): Response {
    const headers = withoutFields(meta.headers, BODY_FIELDS);
    headers.push(['content-range', unsatisfiedRange(length)], ['age', ageSeconds(age)], ['cache-status', this.status(outcome, key)]);
    if (this.options.xCache) headers.push(['x-cache', xCacheValue(outcome)]);
    return new Response(null, { status: 416, headers });
  }
}

/** A Content-Range of the whole stored response (a stored 200 has none, a 206's is not stored): replaced in a 206. */
const RANGE_FIELDS: ReadonlySet<string> = new Set(['content-range']);
/** Fields that describe a body a 416 does not carry. */
const BODY_FIELDS: ReadonlySet<string> = new Set(['content-range', 'content-type', 'content-encoding']);

function withoutFields(headers: readonly HeaderPair[], drop: ReadonlySet<string>): HeaderPair[] {
  return headers.filter(([name]) => !drop.has(name));
}

function headerOf(headers: readonly HeaderPair[], name: string): string | null {
  for (const [field, value] of headers) if (field === name) return value;
  return null;
}

/** A stored response's Date (the cache adds one when the origin sent none), or the time it was received. */
function storedDate(meta: ResponseMeta): string {
  return headerOf(meta.headers, 'date') ?? formatHttpDate(meta.responseTime);
}

/** The Age field value: whole seconds, clamped to 2^31 (RFC 9111 §5.1). */
export function ageSeconds(ageMs: number): string {
  return String(Math.min(Math.floor(ageMs / 1000), 2147483648));
}
