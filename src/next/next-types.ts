/**
 * The shapes Next.js calls, written out structurally rather than imported from `next`: its
 * handler types live under `next/dist/…` paths that move between releases, and this entry must
 * load without `next` installed (an optional peer). They follow Next 16
 * (`next/dist/server/lib/cache-handlers/types.d.ts` and
 * `next/dist/server/lib/incremental-cache/index.d.ts`); test/next checks them against the real
 * declarations.
 */
import type { NextHandlerStats } from './options.ts';

/** A `"use cache"` entry, as Next hands it to `set` and expects it back from `get`. */
export interface UseCacheEntry {
  /** The serialized value; read once by `set`, a new stream from every `get`. */
  value: ReadableStream<Uint8Array>;
  /** The entry's own tags (`cacheTag`), without the soft tags of the page that rendered it. */
  tags: string[];
  /** Seconds the client router may reuse it (not the server's business). */
  stale: number;
  /** When it was created, in ms since the epoch, on the clock of the instance that created it. */
  timestamp: number;
  /** Seconds after `timestamp` past which it must not be served (Next checks it on every read). */
  expire: number;
  /** Seconds after `timestamp` past which it is served once more while Next regenerates it. */
  revalidate: number;
}

/** What `revalidateTag(tag, profile)` passes on: the profile's `expire`, in seconds. */
export interface TagDurations {
  expire?: number;
}

/**
 * The object Next's `cacheHandlers` option loads (`"use cache"`, `"use cache: remote"`): Next 16's
 * `CacheHandler`, plus the methods Next 15 calls instead (`getExpiration(...tags)`,
 * `expireTags`, `receiveExpiredTags`).
 */
export interface NextUseCacheHandler {
  /** The entry for `cacheKey`, or undefined when there is none or a tag it records was revalidated. */
  get(cacheKey: string, softTags: string[]): Promise<UseCacheEntry | undefined>;
  /** Stores the entry once its stream has been read; a `get` of the key meanwhile waits for it. */
  set(cacheKey: string, pendingEntry: Promise<UseCacheEntry>): Promise<void>;
  /** Nothing to refresh: tag generations are read with each entry. */
  refreshTags(): Promise<void>;
  /** `Infinity`: soft tags are checked in `get`, against the store, never against a clock. */
  getExpiration(...tags: Array<string | string[]>): Promise<number>;
  /** `revalidateTag`, `updateTag`, `revalidatePath`: moves the tags on, on every instance. */
  updateTags(tags: string[], durations?: TagDurations): Promise<void>;
  /** Next 15's name for `updateTags` without durations. */
  expireTags(...tags: string[]): Promise<void>;
  /** Next 15.0–15.2: tags another request already expired; the store already knows them. */
  receiveExpiredTags(...tags: string[]): Promise<void>;
  /** cachette's own, not Next's: entries of other builds served and of other versions refused, since the handler was created. */
  stats(): NextHandlerStats;
}

/** A route's lifetime, as Next passes it to `set` (`ctx.cacheControl`) and reads it back. */
export interface CacheControl {
  /** Seconds until a background regeneration, or false for never. */
  revalidate: number | false;
  /** Seconds until it must not be served any more. */
  expire: number | undefined;
}

/**
 * A value of the incremental cache: a rendered App Router page, a Pages Router page, a route
 * handler's response, a `fetch` response or a redirect (`kind` says which; its other fields are
 * Next's, stored as they come and checked when read back).
 */
export interface IncrementalCacheValue {
  kind: string;
  [field: string]: unknown;
}

/** What the incremental cache handler's `get` answers. */
export interface IncrementalCacheHandlerValue {
  /** When the value was stored, in ms since the epoch; Next derives staleness from it. */
  lastModified: number;
  value: IncrementalCacheValue | null;
  /** The lifetime `set` was given, so that any instance serves the entry with it. */
  cacheControl?: CacheControl;
}

/** The second argument of the incremental cache handler's `get`. */
export interface IncrementalGetContext {
  /** `APP_PAGE`, `APP_ROUTE`, `PAGES` or `FETCH` (`IMAGE` has a cache of its own). */
  kind: string;
  /** FETCH: the tags of the `fetch` call. */
  tags?: string[];
  /** FETCH: the implicit tags of the page that runs it. */
  softTags?: string[];
}

/** The third argument of the incremental cache handler's `set`. */
export interface IncrementalSetContext {
  /** True for a `fetch` response. */
  fetchCache?: boolean;
  /** FETCH: the tags of the `fetch` call. */
  tags?: string[];
  /** Pages and route handlers: their lifetime. */
  cacheControl?: CacheControl;
}

/** An instance of the class Next's `cacheHandler` option loads; Next makes several per request. */
export interface NextIncrementalCacheHandler {
  get(cacheKey: string, context: IncrementalGetContext): Promise<IncrementalCacheHandlerValue | null>;
  set(cacheKey: string, data: IncrementalCacheValue | null, context: IncrementalSetContext): Promise<void>;
  revalidateTag(tags: string | string[], durations?: TagDurations): Promise<void>;
  resetRequestCache(): void;
}

/**
 * The class Next's `cacheHandler` option loads (the module's default export), with cachette's
 * own static `stats()`: entries of other builds served and of other versions refused by every
 * instance of the class.
 */
export interface NextIncrementalCacheHandlerClass {
  new (context?: unknown): NextIncrementalCacheHandler;
  stats(): NextHandlerStats;
}
