/**
 * When each tag was last revalidated through the handlers, kept in the store beside the entries
 * (under `next/revalidated:<tag>`), for the tags an entry cannot record as tag generations:
 *
 * - the soft tags of the page a read comes from (its implicit `_N_T_/…` path tags, what
 *   `revalidatePath` revalidates). Next passes them to `get`, never to `set`, so no entry can
 *   record them, and one entry serves every page that reads it: a read checks the soft tags it is
 *   given against these times, in the same store read as the entry;
 * - an entry's own tags past the {@link MAX_TAGS} its generations record (Next allows 128 per
 *   call, and a page lists those of everything it rendered): checked by a second read, for such
 *   entries only.
 *
 * An entry is outdated when one of those tags was revalidated at or after its moment (when its
 * generation began, for `"use cache"`; when it was stored, for the incremental cache), less a
 * margin (`writeFence`): the times come from the clocks of different instances, and a margin of
 * the fence's length covers both their skew and the renders that end inside the fence, which
 * the fence keeps from being stored for the tags an entry records. This is Next's own model for
 * soft tags (`getExpiration`), checked here in `get`, which is why `getExpiration` answers
 * `Infinity`. A revalidation made with `cache.invalidateTags` outside the handlers moves the
 * generations only: it reaches the tags an entry records, not these.
 */
import { MAX_TAGS } from '../cache/tags/tag-keys.ts';
import type { Cache, ValueLookup } from '../cache/types.ts';
import { storeKey } from './keys.ts';

const SPACE = 'next/revalidated';

/** The longest the handlers keep an entry, and so a revalidation time: 366 days (an entry's `expire` beyond it is cut to it). */
const LONGEST_KEEP_MS = 366 * 86_400_000;

/** The clock Next stamps `"use cache"` entries with (`performance.timeOrigin + performance.now()`). */
export function nowOnNextClock(): number {
  return performance.timeOrigin + performance.now();
}

/** Records that `tags` are revalidated now, for every instance; resolves false when the store failed (the cache reports it). */
export function recordRevalidations(cache: Cache, tags: readonly string[]): Promise<boolean> {
  const at = nowOnNextClock();
  return cache.setMany(tags.map((tag) => ({ key: storeKey(SPACE, tag), value: at, ttl: LONGEST_KEEP_MS })));
}

/** The tags of an entry's own that its tag generations record: the first {@link MAX_TAGS}. */
export function generationTags(own: readonly string[]): readonly string[] {
  return own.length <= MAX_TAGS ? own : own.slice(0, MAX_TAGS);
}

/**
 * The entry under `key` as `cache.lookup` finds it (fresh, or stale inside its grace: a soft
 * revalidation, tags.ts) and the latest revalidation time of `softTags` (-Infinity when none was
 * revalidated), in one store read (the cache folds the reads of a tick into one round trip).
 */
export async function readWithRevalidations(cache: Cache, key: string, softTags: readonly string[]): Promise<{ found: ValueLookup<unknown> | undefined; softRevalidatedAt: number }> {
  const [found, times] = await Promise.all([cache.lookup(key), softTags.length === 0 ? [] : cache.getMany(softTags.map((tag) => storeKey(SPACE, tag)))]);
  return { found, softRevalidatedAt: latest(times) };
}

/** How long the handlers keep an entry that lives `expireS` seconds: its expire, at most {@link LONGEST_KEEP_MS}. */
export function keptMs(expireS: number): number {
  return Math.min(expireS * 1000, LONGEST_KEEP_MS);
}

/**
 * True when a stale entry under `key`, kept for `keptForMs`, is at the end of its life rather
 * than staled by a soft revalidation (both are stale inside the grace it was stored with): told
 * by its age on the cache's clock, in one more store read, which only stale reads make. An
 * entry gone or rewritten meanwhile is judged as it is now.
 */
export async function pastItsLife(cache: Cache, key: string, keptForMs: number): Promise<boolean> {
  const { state, age } = await cache.inspect(key);
  return state === 'missing' || age === undefined || age >= keptForMs;
}

/**
 * True when an entry of `moment` whose own tags are `own` is outdated by time (see the module
 * comment): a soft tag's revalidation read with it (`softRevalidatedAt`), or one of its tags
 * past those its generations record.
 */
export async function outdatedByTime(cache: Cache, own: readonly string[], softRevalidatedAt: number, moment: number, marginMs: number): Promise<boolean> {
  if (softRevalidatedAt + marginMs >= moment) return true;
  if (own.length <= MAX_TAGS) return false;
  const times = await cache.getMany(own.slice(MAX_TAGS).map((tag) => storeKey(SPACE, tag)));
  return latest(times) + marginMs >= moment;
}

/** The latest of revalidation times read back: a missing one never was; one that is not a time (another program's value) counts as now and for ever, a miss rather than a guess. */
function latest(times: readonly unknown[]): number {
  let at = Number.NEGATIVE_INFINITY;
  for (const time of times) {
    if (time === undefined) continue;
    at = Math.max(at, typeof time === 'number' && Number.isFinite(time) ? time : Number.POSITIVE_INFINITY);
  }
  return at;
}
