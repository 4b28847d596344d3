import { storeKey } from './keys.ts';
import type { IncrementalCacheValue, IncrementalGetContext, IncrementalSetContext, NextIncrementalCacheHandler, NextIncrementalCacheHandlerClass, TagDurations } from './next-types.ts';
import type { HandlerContext } from './options.ts';
import { readIncrementalRecord, withPlatformBytes, type IncrementalRecord } from './records.ts';
import { generationTags, LONGEST_KEEP_MS, nowOnNextClock, outdatedByTime, readWithRevalidations } from './revalidation-times.ts';
import { revalidateTags, storableTags, uniqueTags } from './tags.ts';

const SPACE = 'next/isr';
/** How long an entry without an `expire` is kept: a year, Next's default `expireTime`. */
const DEFAULT_EXPIRE_S = 31_536_000;
/** The response header in which Next lists the tags of a page or a route handler's response. */
const CACHE_TAGS_HEADER = 'x-next-cache-tags';

/**
 * The class Next's `cacheHandler` option loads: the incremental cache (ISR pages, App Router
 * pages and route handlers, the `fetch` cache) over a cachette cache. Next builds several
 * instances per request, so everything lives in the closure and the constructor does nothing.
 *
 * A page's tags are those Next lists in its `x-next-cache-tags` header (its implicit path tags,
 * and the tags of the `"use cache"` functions and fetches it used); a fetch's are the tags of
 * the call, and a read of it checks the soft tags of the page it runs in against their
 * revalidation times, in the same store read (revalidation-times.ts). A stored fetch that lacks
 * one of the tags the call now declares is a miss: stored again, it records them all.
 */
export function incrementalHandlerClass(context: HandlerContext, platformBytes: (bytes: Uint8Array) => Uint8Array): NextIncrementalCacheHandlerClass {
  return class CachetteIncrementalCache implements NextIncrementalCacheHandler {
    async get(cacheKey: string, ctx: IncrementalGetContext) {
      const fetch = ctx?.kind === 'FETCH';
      const cache = await context.cache();
      const soft = fetch && Array.isArray(ctx.softTags) ? uniqueTags(ctx.softTags) : [];
      const { stored, softRevalidatedAt } = await readWithRevalidations(cache, storeKey(SPACE, cacheKey), soft);
      if (stored === undefined) return null;
      const record = readIncrementalRecord(stored, ctx?.kind);
      if (record === undefined) {
        context.warn('foreign', `an entry that is not an incremental cache record of kind ${String(ctx?.kind)} was read back and ignored, first for ${cacheKey.slice(0, 120)}`);
        return null;
      }
      if (fetch && !uniqueTags(ctx.tags ?? []).every((tag) => record.tags.includes(tag))) return null;
      // Stored before one of the page's soft tags (or of its tags past those it records) was revalidated.
      if (await outdatedByTime(cache, record.tags, softRevalidatedAt, record.lastModified, context.fenceMs)) return null;
      return { lastModified: record.lastModified, value: withPlatformBytes(record.value, platformBytes), ...(record.cacheControl ? { cacheControl: record.cacheControl } : {}) };
    }

    async set(cacheKey: string, data: IncrementalCacheValue | null, ctx: IncrementalSetContext) {
      const cache = await context.cache();
      const key = storeKey(SPACE, cacheKey);
      if (data === null) {
        // Nothing to serve (Next's own handlers store nothing either): what was there is gone.
        await cache.delete(key);
        return;
      }
      const own = ctx?.fetchCache ? uniqueTags(ctx.tags ?? []) : tagsOf(data);
      if (!storableTags(own, cacheKey, context)) return;
      const cacheControl = ctx?.fetchCache ? undefined : ctx?.cacheControl;
      // On the clock Next reads it with (it computes ISR staleness from `performance`), which revalidation times use too.
      const record: IncrementalRecord = { lastModified: nowOnNextClock(), value: data, cacheControl, tags: own };
      const expire = typeof cacheControl?.expire === 'number' && cacheControl.expire > 0 ? cacheControl.expire : DEFAULT_EXPIRE_S;
      try {
        await cache.set(key, record, { ttl: Math.min(expire * 1000, LONGEST_KEEP_MS), tags: generationTags(own) });
      } catch (error) {
        context.warn('serializer', `entries are not stored: ${(error as Error).message} (give the handlers a cache with serializer 'auto' or 'cbor')`);
      }
    }

    revalidateTag(tags: string | string[], durations?: TagDurations) {
      return revalidateTags(context, typeof tags === 'string' ? [tags] : Array.isArray(tags) ? tags : [], durations);
    }

    resetRequestCache() {
      // Nothing is kept per request: every read goes to the store (or to the cache's L1).
    }
  };
}

/** The tags Next listed for a page or a route handler's response. */
function tagsOf(data: IncrementalCacheValue): string[] {
  const headers = data.headers;
  const listed = typeof headers === 'object' && headers !== null ? (headers as Record<string, unknown>)[CACHE_TAGS_HEADER] : undefined;
  return typeof listed === 'string' ? uniqueTags(listed.split(',')) : [];
}
