/**
 * Where the engine keeps what tags and leases need on the store, next to the cache's entries
 * and under the same prefix (so `clear()` removes them too):
 *
 *   <prefix>#{tag:<tag>}:gen     the tag's generation, a decimal counter
 *   <prefix>#{tag:<tag>}:fence   the write leases held on the tag
 *   <prefix>#lease:<key>         the fill lease of one entry
 *
 * The two keys of a tag share the hash tag `{tag:<tag>}`, so on a Valkey/Redis cluster they
 * live in one slot and one script reads or writes them together. The `tag:` inside the braces
 * keeps the hash tag non-empty whatever the tag starts with (`{}` would hash the whole key).
 * Entry keys keep no hash tag: entries spread over the cluster; a hot tag's two keys live on
 * one node, as any hot key does. User keys starting with `#{tag:` or `#lease:` are reserved.
 */
import type { TagKeys } from '../../store/types.ts';

/** The most tags one entry may carry: each costs its generation on every read of the entry. */
export const MAX_TAGS = 64;

/** The store keys of `tag` under `prefix`. */
export function tagKeys(prefix: string, tag: string): TagKeys {
  const base = `${prefix}#{tag:${tag}}`;
  return { generation: `${base}:gen`, fence: `${base}:fence` };
}

/** The fill lease key of the entry `key` (unprefixed) under `prefix`. */
export function fillLeaseKey(prefix: string, key: string): string {
  return `${prefix}#lease:${key}`;
}

/** No tags, shared so that untagged calls allocate nothing. */
export const NO_TAGS: readonly string[] = Object.freeze([]);

/**
 * Checks a caller's tags and returns them without duplicates: a non-empty array of non-empty
 * strings, at most {@link MAX_TAGS}. `where` names the call in the TypeError or RangeError.
 */
export function checkTags(tags: unknown, where: string): readonly string[] {
  if (tags === undefined) return NO_TAGS;
  if (!Array.isArray(tags)) throw new TypeError(`cachette: ${where}: "tags" must be an array of strings, got ${typeof tags}`);
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.length === 0) throw new TypeError(`cachette: ${where}: every tag must be a non-empty string, got ${JSON.stringify(tag)}`);
  }
  const unique = tags.length < 2 ? (tags as string[]) : [...new Set(tags as string[])];
  if (unique.length > MAX_TAGS) throw new RangeError(`cachette: ${where}: at most ${MAX_TAGS} tags per entry, got ${unique.length}`);
  return unique;
}

/**
 * A random starting generation for a counter that does not exist (yet, or any more): below
 * 2^48 so that increments stay exact in a float64 for ever, above 2^32 so it never meets the
 * small numbers a counter created by a plain INCR starts from. An evicted counter recreated at
 * a new random epoch makes every entry that recorded the old one a miss (chance of a collision:
 * one in 2^47).
 */
export function newEpoch(): number {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return 2 ** 32 + (words[0]! % 0xffff) * 2 ** 32 + words[1]!;
}

/** A random token naming one lease holder (16 bytes, hex). */
export function newToken(): string {
  let hex = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(16))) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
