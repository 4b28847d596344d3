/**
 * Surrogate keys (tags) for `purge({ tag })`.
 *
 * This first version keeps, per tag, the list of entry keys that carry it (`t:<tag>` on the
 * engine). Purging a tag deletes those entries and the list. Updates to one tag's list are
 * serialised inside the process; two processes adding to the same tag at the same instant can
 * lose one key from the list (that entry then simply lives until its TTL). Generation-based
 * tags (a counter per tag, compared on read: no lists, no races) replace this behind the same
 * interface once the engine has them.
 */
import type { Cache } from '../cache/create-cache.ts';
import { KeyedQueue } from './keyed-queue.ts';

/** Records which entries carry which tags, and purges by tag. */
export interface TagIndex {
  /** Records that the entry under the engine key `key` carries `tags` and lives `ttlMs`. */
  add(tags: readonly string[], key: string, ttlMs: number): Promise<void>;
  /** Deletes every entry carrying `tag`; resolves with how many entries existed. */
  purge(tag: string): Promise<number>;
}

interface TagList {
  keys: string[];
  /** Store-clock time until which the latest listed entry may live. */
  until: number;
}

/** Most keys remembered per tag; the oldest go first (they are the likeliest to have expired). */
const MAX_KEYS_PER_TAG = 10_000;

/** A {@link TagIndex} kept as one key list per tag on the cache engine. */
export class ListTagIndex implements TagIndex {
  readonly #queue = new KeyedQueue();

  constructor(private readonly cache: Cache) {}

  add(tags: readonly string[], key: string, ttlMs: number): Promise<void> {
    return Promise.all(
      tags.map((tag) =>
        this.#queue.run(tag, async () => {
          const listKey = `t:${tag}`;
          const found = await this.cache.get<TagList>(listKey);
          const keys = isTagList(found) ? found.keys.filter((k) => k !== key) : [];
          keys.push(key);
          if (keys.length > MAX_KEYS_PER_TAG) keys.splice(0, keys.length - MAX_KEYS_PER_TAG);
          const until = Math.max(isTagList(found) ? found.until : 0, Date.now() + ttlMs);
          await this.cache.set(listKey, { keys, until } satisfies TagList, { ttl: Math.max(1, until - Date.now()) });
        }),
      ),
    ).then(() => undefined);
  }

  purge(tag: string): Promise<number> {
    return this.#queue.run(tag, async () => {
      const listKey = `t:${tag}`;
      const found = await this.cache.get<TagList>(listKey);
      const keys = isTagList(found) ? found.keys : [];
      const deleted = keys.length > 0 ? await this.cache.delete(keys) : 0;
      await this.cache.delete(listKey);
      return deleted;
    });
  }
}

/** A tag list as written by {@link ListTagIndex.add}; stored bytes are untrusted, so every key must be a string. */
function isTagList(v: unknown): v is TagList {
  const keys = typeof v === 'object' && v !== null ? (v as TagList).keys : undefined;
  return Array.isArray(keys) && keys.every((k) => typeof k === 'string' && k.length > 0);
}

/** The tags a response names in `Cache-Tag` (comma-separated) and `Surrogate-Key` (space-separated). */
export function responseTags(headers: Headers): string[] {
  const tags: string[] = [];
  const cacheTag = headers.get('cache-tag');
  if (cacheTag) for (const t of cacheTag.split(',')) if (t.trim()) tags.push(t.trim());
  const surrogate = headers.get('surrogate-key');
  if (surrogate) for (const t of surrogate.split(/\s+/)) if (t) tags.push(t);
  return tags;
}
