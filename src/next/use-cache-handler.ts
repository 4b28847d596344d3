import { admitted, marksOf, served, statsOf } from './builds.ts';
import { storeKey } from './keys.ts';
import type { NextUseCacheHandler, TagDurations, UseCacheEntry } from './next-types.ts';
import type { HandlerContext } from './options.ts';
import { readUseCacheRecord, type UseCacheRecord } from './records.ts';
import { generationTags, keptMs, outdatedByTime, pastItsLife, readWithRevalidations } from './revalidation-times.ts';
import { readStream, streamOf } from './stream-bytes.ts';
import { graceFor, LocalRevalidations, revalidateTags, storableTags, uniqueTags } from './tags.ts';

const SPACE = 'next/use-cache';

/**
 * The `"use cache"` handler over a cachette cache (Next's `cacheHandlers`). Entries are stored
 * with Next's metadata and the bytes of their stream, under their tags, for `expire` seconds;
 * tags are checked by the engine on every read (one round trip for the entry, one more for the
 * generations of the tags it records), and the soft tags `get` is given are checked against
 * their revalidation times in the read of the entry (revalidation-times.ts). An entry a soft
 * revalidation staled (tags.ts) is handed back with `revalidate: -1`; one stored under another
 * `version` is a miss, and one another build stored is counted (builds.ts). Every build shares
 * these entries: Next's key tells builds apart unless it keys by code (docs/next.md#across-deploys).
 */
export function directiveCacheHandler(context: HandlerContext): NextUseCacheHandler {
  /** Writes in progress in this process, by key: a read of the key waits for them (Next requires it). */
  const writing = new Map<string, Promise<void>>();
  const local = new LocalRevalidations();

  const store = async (key: string, pendingEntry: Promise<UseCacheEntry>): Promise<void> => {
    let entry: UseCacheEntry;
    try {
      entry = await pendingEntry;
    } catch {
      return; // the generation failed: there is nothing to store
    }
    if (!(entry.expire > 0)) {
      // 0: a dynamic entry, regenerated on every read (Next skips storing it too); below 0: the
      // eviction mark of Next's development tiers, since the interface has no delete.
      await entry.value.cancel().catch(() => {});
      if (entry.expire < 0) await (await context.cache()).delete(storeKey(SPACE, key));
      return;
    }
    const body = await readStream(entry.value, context.maxEntryBytes);
    const own = uniqueTags(entry.tags);
    if (body === undefined || !storableTags(own, key, context) || local.after(own, entry.timestamp)) return;
    const record: UseCacheRecord = { tags: own, stale: entry.stale, timestamp: entry.timestamp, expire: entry.expire, revalidate: entry.revalidate, body, ...marksOf(context) };
    const cache = await context.cache();
    const ttl = keptMs(entry.expire);
    try {
      await cache.set(storeKey(SPACE, key), record, { ttl, grace: graceFor(ttl), tags: generationTags(own) });
    } catch (error) {
      // The cache's serializer cannot encode bytes (a cache created with serializer: 'json' or 'raw').
      context.warn('serializer', `entries are not stored: ${(error as Error).message} (give the handlers a cache with serializer 'auto' or 'cbor')`);
    }
  };

  const expire = (tags: readonly unknown[], durations?: TagDurations) => {
    local.note(uniqueTags(tags));
    return revalidateTags(context, tags, durations);
  };

  return {
    async get(cacheKey, soft) {
      await writing.get(cacheKey);
      const cache = await context.cache();
      const key = storeKey(SPACE, cacheKey);
      const { found, softRevalidatedAt } = await readWithRevalidations(cache, key, uniqueTags(Array.isArray(soft) ? soft : []));
      if (found === undefined) return undefined;
      const record = readUseCacheRecord(found.value);
      if (record === undefined) {
        context.warn('foreign', `an entry that is not a "use cache" record was read back and ignored (is another program writing under this prefix?), first for ${cacheKey.slice(0, 120)}`);
        return undefined;
      }
      if (!admitted(context, record, cacheKey)) return undefined;
      // Stale past its expire is its end; stale before it, a soft revalidation of one of its tags.
      if (found.state === 'stale' && (await pastItsLife(cache, key, keptMs(record.expire)))) return undefined;
      // Its generation began before one of the page's soft tags (or of its tags past those it records) was revalidated.
      if (await outdatedByTime(cache, record.tags, softRevalidatedAt, record.timestamp, context.fenceMs)) return undefined;
      served(context, record);
      const { body, build: _build, version: _version, ...metadata } = record;
      // Stale: Next serves it once more and regenerates it in the background (as its own handler does for a stale tag).
      return { ...metadata, ...(found.state === 'stale' ? { revalidate: -1 } : {}), value: streamOf(body) };
    },

    async set(cacheKey, pendingEntry) {
      const done = store(cacheKey, pendingEntry);
      writing.set(cacheKey, done);
      try {
        await done;
      } finally {
        if (writing.get(cacheKey) === done) writing.delete(cacheKey);
      }
    },

    refreshTags: () => Promise.resolve(),
    getExpiration: () => Promise.resolve(Infinity),
    updateTags: (tags, durations) => expire(tags, durations),
    expireTags: (...tags) => expire(tags),
    receiveExpiredTags: () => Promise.resolve(),
    stats: () => statsOf(context),
  };
}
