import { VERSION_PREFIX_BYTES } from '../../store/layout/envelope.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import type { WebCache } from './location-options.ts';

/** A copy read back from the location's Cache: its stored bytes, what they decode to, and when a store read last confirmed it. */
export interface LocationCopy {
  readonly bytes: Uint8Array;
  readonly entry: DecodedEntry;
  /** The first {@link VERSION_PREFIX_BYTES} stored bytes: what the store compares to answer "unchanged". */
  readonly prefix: Uint8Array;
  /** When the read that last confirmed it was issued (ms, the cache's clock). */
  readonly confirmedAt: number;
}

/**
 * The host of every copy's URL: `.invalid` is reserved (RFC 2606), so no real site's response
 * shares a Cache with one of these, and the full key (the cache's prefix and namespace
 * included) as the path keeps two caches with different prefixes apart.
 */
const ORIGIN = 'https://cachette.invalid/';
/** Full keys longer than this (UTF-16 units) are not copied: a URL stays well inside what the Cache API takes. */
export const MAX_COPIED_KEY_LENGTH = 2048;
/** The header that carries {@link LocationCopy.confirmedAt}. */
const CONFIRMED = 'x-cachette-confirmed';
/** Longest a copy is kept by the Cache itself when its entry never expires: a year. */
const MAX_KEPT_SECONDS = 365 * 24 * 3600;

/**
 * The copies of one location, in a web-standard Cache under synthetic URLs: each holds the
 * stored entry's bytes as they came from the store (nothing else: no header of the response it
 * may hold, no Set-Cookie), and the time it was last confirmed. Bounded: an entry over
 * `maxBytes` or a key over {@link MAX_COPIED_KEY_LENGTH} is not copied, and the Cache drops a
 * copy when its entry's grace ends (Cache-Control max-age), or earlier, as its own eviction
 * chooses.
 */
export class LocationCopies {
  constructor(
    private readonly cache: () => Promise<WebCache>,
    private readonly maxBytes: number,
    private readonly decode: (key: string, bytes: Uint8Array) => DecodedEntry | undefined,
  ) {}

  /** True when `full` may have a copy at all. */
  copies(full: string): boolean {
    return full.length <= MAX_COPIED_KEY_LENGTH;
  }

  /** The copy of `full` (the entry of `key`) here, when there is a readable one. A Cache that fails is a miss: the store is read instead. */
  async get(key: string, full: string): Promise<LocationCopy | undefined> {
    let response: Response | undefined;
    try {
      response = await (await this.cache()).match(urlOf(full));
    } catch {
      return undefined;
    }
    if (response === undefined) return undefined;
    const confirmedAt = Number(response.headers.get(CONFIRMED));
    const length = response.headers.get('content-length');
    // A copy is never larger than what this tier puts; one that says it is goes unread.
    if (length !== null && !(Number(length) <= this.maxBytes)) {
      await response.body?.cancel();
      return undefined;
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch {
      return undefined;
    }
    if (bytes.length < VERSION_PREFIX_BYTES || bytes.length > this.maxBytes || !Number.isFinite(confirmedAt)) return undefined;
    const entry = this.decode(key, bytes);
    if (entry === undefined) return undefined;
    return { bytes, entry, prefix: bytes.subarray(0, VERSION_PREFIX_BYTES), confirmedAt };
  }

  /** Keeps `bytes` (decoded to `entry`) as the copy of `full`, confirmed at `confirmedAt`; too large, expired or unkeepable ones are not kept. */
  async put(full: string, bytes: Uint8Array, entry: DecodedEntry, confirmedAt: number, now: number): Promise<void> {
    if (!this.copies(full) || bytes.length > this.maxBytes || bytes.length < VERSION_PREFIX_BYTES) return;
    const left = entry.staleUntil - now;
    if (!(left > 0)) return;
    const maxAge = Number.isFinite(left) ? Math.min(MAX_KEPT_SECONDS, Math.ceil(left / 1000)) : MAX_KEPT_SECONDS;
    const response = new Response(bytes.slice(), {
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(bytes.length),
        'cache-control': `max-age=${maxAge}`,
        [CONFIRMED]: String(confirmedAt),
      },
    });
    try {
      await (await this.cache()).put(urlOf(full), response);
    } catch {
      // Not kept: the next read goes to the store, as without the tier.
    }
  }

  /** Drops the copy of `full`. */
  async delete(full: string): Promise<void> {
    if (!this.copies(full)) return;
    try {
      await (await this.cache()).delete(urlOf(full));
    } catch {
      // Left in place: a verified read confirms it away at its next read; a bounded one serves it until its maxAge at most.
    }
  }
}

function urlOf(full: string): string {
  return ORIGIN + encodeURIComponent(full);
}
