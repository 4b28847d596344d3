import { admitted, marksOf, served, statsOf } from './builds.ts';
import { storeKey } from './keys.ts';
import type { CacheControl, IncrementalCacheValue, IncrementalGetContext, IncrementalSetContext, NextIncrementalCacheHandler, NextIncrementalCacheHandlerClass, TagDurations } from './next-types.ts';
import type { HandlerContext } from './options.ts';
import { readIncrementalRecord, withPlatformBytes, type IncrementalRecord } from './records.ts';
import { generationTags, keptMs, nowOnNextClock, outdatedByTime, pastItsLife, readWithRevalidations } from './revalidation-times.ts';
import { graceFor, revalidateTags, storableTags, uniqueTags } from './tags.ts';

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
 *
 * With `buildId`, pages and route handlers are stored under that build's own space
 * (`next/isr@<buildId>`: a page names its build's scripts) and fetches under the shared one, so
 * every build reads the fetches any build stored. An entry a soft revalidation made stale is
 * handed to Next with a `lastModified` that Next reads as stale: it serves it once more and
 * regenerates it in the background.
 */
export function incrementalHandlerClass(context: HandlerContext, platformBytes: (bytes: Uint8Array) => Uint8Array): NextIncrementalCacheHandlerClass {
  const keyOf = (cacheKey: string, fetch: boolean) => storeKey(fetch || context.buildId === undefined ? SPACE : `${SPACE}@${context.buildId}`, cacheKey);
  return class CachetteIncrementalCache implements NextIncrementalCacheHandler {
    static stats() {
      return statsOf(context);
    }

    async get(cacheKey: string, ctx: IncrementalGetContext) {
      const fetch = ctx?.kind === 'FETCH';
      const cache = await context.cache();
      const soft = fetch && Array.isArray(ctx.softTags) ? uniqueTags(ctx.softTags) : [];
      const key = keyOf(cacheKey, fetch);
      const { found, softRevalidatedAt } = await readWithRevalidations(cache, key, soft);
      if (found === undefined) return null;
      const record = readIncrementalRecord(found.value, ctx?.kind);
      if (record === undefined) {
        context.warn('foreign', `an entry that is not an incremental cache record of kind ${String(ctx?.kind)} was read back and ignored, first for ${cacheKey.slice(0, 120)}`);
        return null;
      }
      if (!admitted(context, record, cacheKey)) return null;
      if (fetch && !uniqueTags(ctx.tags ?? []).every((tag) => record.tags.includes(tag))) return null;
      const stale = found.state === 'stale';
      // Stale past its expire is its end; stale before it, a soft revalidation of one of its tags.
      if (stale && (await pastItsLife(cache, key, keptMs(expireOf(record.cacheControl))))) return null;
      // Stored before one of the page's soft tags (or of its tags past those it records) was revalidated.
      if (await outdatedByTime(cache, record.tags, softRevalidatedAt, record.lastModified, context.fenceMs)) return null;
      const lastModified = stale ? staleModified(record.value, record.cacheControl) : record.lastModified;
      if (lastModified === undefined) return null;
      if (fetch) served(context, record);
      return { lastModified, value: withPlatformBytes(record.value, platformBytes), ...(record.cacheControl ? { cacheControl: record.cacheControl } : {}) };
    }

    async set(cacheKey: string, data: IncrementalCacheValue | null, ctx: IncrementalSetContext) {
      const cache = await context.cache();
      const key = keyOf(cacheKey, ctx?.fetchCache === true || data?.kind === 'FETCH');
      if (data === null) {
        // Nothing to serve (Next's own handlers store nothing either): what was there is gone.
        await cache.delete(key);
        return;
      }
      const own = ctx?.fetchCache ? uniqueTags(ctx.tags ?? []) : tagsOf(data);
      if (!storableTags(own, cacheKey, context)) return;
      const cacheControl = ctx?.fetchCache ? undefined : ctx?.cacheControl;
      // On the clock Next reads it with (it computes ISR staleness from `performance`), which revalidation times use too.
      const record: IncrementalRecord = { lastModified: nowOnNextClock(), value: data, cacheControl, tags: own, ...marksOf(context) };
      const ttl = keptMs(expireOf(cacheControl));
      try {
        await cache.set(key, record, { ttl, grace: graceFor(ttl), tags: generationTags(own) });
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

/** Seconds an entry of `cacheControl` is kept: its `expire`, or Next's default `expireTime`. */
function expireOf(cacheControl: CacheControl | undefined): number {
  return typeof cacheControl?.expire === 'number' && cacheControl.expire > 0 ? cacheControl.expire : DEFAULT_EXPIRE_S;
}

/**
 * The `lastModified` that Next reads as stale but not expired, for an entry a soft revalidation
 * staled: a fetch's age is then past any `revalidate`; a page's is past its `revalidate` and
 * short of its `expire`. Undefined for a page that never revalidates by time (`revalidate: false`,
 * or not before its `expire`): Next would not read it as stale, so it is a miss.
 */
function staleModified(value: IncrementalCacheValue, cacheControl: CacheControl | undefined): number | undefined {
  if (value.kind === 'FETCH') return 0;
  const revalidate = cacheControl?.revalidate;
  if (typeof revalidate !== 'number' || !(revalidate > 0)) return undefined;
  if (typeof cacheControl?.expire === 'number' && cacheControl.expire <= revalidate) return undefined;
  return nowOnNextClock() - revalidate * 1000 - 1;
}

/** The tags Next listed for a page or a route handler's response. */
function tagsOf(data: IncrementalCacheValue): string[] {
  const headers = data.headers;
  const listed = typeof headers === 'object' && headers !== null ? (headers as Record<string, unknown>)[CACHE_TAGS_HEADER] : undefined;
  return typeof listed === 'string' ? uniqueTags(listed.split(',')) : [];
}
