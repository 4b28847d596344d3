/**
 * Next's tags on cachette's tag generations (docs/tags.md). An entry records the generations of
 * its tags when it is stored; `revalidateTag` on any instance moves them on in the store, and
 * every instance's next read of an entry that recorded an older one is a miss (or, moved softly
 * by a long profile, a stale entry Next serves once more): no pub/sub, no tags manifest to
 * refresh, and for the tags an entry records, no clock to compare. Tags are one set for every
 * build that shares the store, prefix and namespace, with or without `buildId`.
 *
 * Soft tags are the implicit tags of the page being rendered (`_N_T_/…`, what `revalidatePath`
 * revalidates). Next passes them to `get`, not to `set`, so no entry records them: a read checks
 * them against the times the handlers recorded their revalidations at (revalidation-times.ts),
 * as it does an entry's own tags past those its generations record.
 */
import { MAX_TAGS } from '../cache/tags/tag-keys.ts';
import type { HandlerContext } from './options.ts';
import type { TagDurations } from './next-types.ts';
import { nowOnNextClock, recordRevalidations } from './revalidation-times.ts';

/** Next's own bound: at most 128 tags per `cacheTag()` call or `fetch` (NEXT_CACHE_TAG_MAX_ITEMS). */
export const NEXT_TAG_ITEMS = 128;
/**
 * The most tags one entry may have: twice Next's bound, since an entry's list gathers several
 * (a `"use cache"` function may call `cacheTag()` more than once, and a page lists its path tags
 * and those of everything it rendered). Past it an entry is served and not stored, and that is said.
 */
export const MAX_ENTRY_TAGS = 2 * NEXT_TAG_ITEMS;

/** The most tags whose latest revalidation in this process is remembered. */
const REMEMBERED_TAGS = 4096;

/** A Map that forgets its oldest keys beyond `limit`. */
class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();
  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.limit) this.#entries.delete(this.#entries.keys().next().value as K);
  }
}

/** `tags` without duplicates and without what cannot be a tag (empty strings, non-strings). */
export function uniqueTags(tags: readonly unknown[]): string[] {
  return [...new Set(tags.filter((tag): tag is string => typeof tag === 'string' && tag.length > 0))];
}

/** True when an entry may have `tags`; otherwise it is not stored, and that is said (once: each later one is refused alike). */
export function storableTags(tags: readonly string[], key: string, context: HandlerContext): boolean {
  if (tags.length <= MAX_ENTRY_TAGS) return true;
  context.warn(
    'tags',
    `an entry with ${tags.length} tags (more than ${MAX_ENTRY_TAGS}, twice Next's ${NEXT_TAG_ITEMS}) is served but not stored, nor is any later one with as many; first seen for ${key.slice(0, 120)}`,
  );
  return false;
}

/**
 * The revalidations this process made, by tag, on the clock Next stamps entries with in this
 * process: a `"use cache"` entry whose generation began before one of its tags was revalidated
 * here read data older than that revalidation, and is not stored.
 */
export class LocalRevalidations {
  readonly #at = new BoundedMap<string, number>(REMEMBERED_TAGS);

  note(tags: readonly string[]): void {
    const now = nowOnNextClock();
    for (const tag of tags) this.#at.set(tag, now);
  }

  /** True when one of `tags` was revalidated here after `timestamp`. */
  after(tags: readonly string[], timestamp: number): boolean {
    return tags.some((tag) => (this.#at.get(tag) ?? -Infinity) >= timestamp);
  }
}

/**
 * How long a soft revalidation leaves an entry to be served stale (once, while Next regenerates
 * it): a day, or the entry's own life when shorter. Every entry is stored with it as its grace
 * ({@link graceFor}); read later than that, such an entry is a miss.
 */
export const SOFT_STALE_MS = 86_400_000;

/** The grace an entry living `ttlMs` is stored with, so that a soft revalidation leaves it to be served stale. */
export function graceFor(ttlMs: number): number {
  return Math.min(ttlMs, SOFT_STALE_MS);
}

/**
 * Revalidates `tags` in the store, for every instance: their generations move on, and the time
 * of the revalidation is recorded for the reads that check them by time (soft tags, and an
 * entry's tags past those it records: revalidation-times.ts).
 *
 * - Without durations (`updateTag`, a one-argument `revalidateTag`, `revalidatePath`) or with
 *   `expire: 0`, the tags expire at once and a write fence holds them for `fenceMs`: no
 *   instance stores an entry of those tags meanwhile, so a render that read the data before
 *   the write cannot cache it after.
 * - With a profile whose `expire` is at least {@link SOFT_STALE_MS} (`revalidateTag(tag,
 *   'max')`, `'days'`, `'weeks'`), or none, Next asks for stale-while-revalidate: the
 *   generations move softly, and the next read of an entry of those tags reports it stale
 *   (`revalidate: -1`, an ISR `lastModified` past its revalidate) so that Next serves it once
 *   more and regenerates it. Read under them as soft tags, entries are misses (a time is all
 *   those reads see).
 * - With a shorter profile, the tags expire at once, unfenced: served stale, an entry could
 *   outlive the profile's `expire`, and a miss is within Next's contract.
 *
 * A store that fails does not make it reject (the cache reports it: an `error` event, its
 * logger); only a store that cannot be opened at all does.
 */
export async function revalidateTags(context: HandlerContext, tags: readonly unknown[], durations: TagDurations | undefined): Promise<void> {
  const names = uniqueTags(tags);
  if (names.length === 0) return;
  const cache = await context.cache();
  const immediate = durations === undefined || durations.expire === 0;
  const soft = durations !== undefined && (durations.expire === undefined || durations.expire * 1000 >= SOFT_STALE_MS);
  const chunks: string[][] = [];
  for (let i = 0; i < names.length; i += MAX_TAGS) chunks.push(names.slice(i, i + MAX_TAGS));
  await Promise.all([
    recordRevalidations(cache, names),
    ...chunks.map(async (chunk) => {
      if (!immediate) {
        await cache.invalidateTags(chunk, { soft });
        return;
      }
      const fence = await cache.beginWrite(chunk);
      if (context.fenceMs === 0) return fence.commit();
      // A commit that fails was reported by the cache (an error event; thrown only by a strict
      // cache): the lease then expires by itself, and no timer may reject unhandled.
      const timer = setTimeout(() => void fence.commit().catch(() => {}), context.fenceMs);
      // A pending commit must not keep a process (next build, a script) alive: if it exits first, the lease expires by itself.
      (timer as { unref?: () => void }).unref?.();
    }),
  ]);
}
