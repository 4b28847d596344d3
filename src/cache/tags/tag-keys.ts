/** Tag names, epochs and tokens: the values behind the tag and lease keys of key-space.ts. */

/** The most tags one entry may carry: each costs its generation on every read of the entry. */
export const MAX_TAGS = 64;

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
  const unique = tags.length < 2 ? (tags as string[]) : withoutDuplicates(tags as string[]);
  if (unique.length > MAX_TAGS) throw new RangeError(`cachette: ${where}: at most ${MAX_TAGS} tags per entry, got ${unique.length}`);
  return unique;
}

/** `tags` without repeats, in order; a few tags are compared pairwise, which costs less than a Set. */
function withoutDuplicates(tags: readonly string[]): string[] {
  if (tags.length > 16) return [...new Set(tags)];
  const unique: string[] = [];
  for (const tag of tags) if (!unique.includes(tag)) unique.push(tag);
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
  const high = randomWord();
  return 2 ** 32 + (high % 0xffff) * 2 ** 32 + randomWord();
}

const randomWords = new Uint32Array(4096);
let randomAt = randomWords.length;

/** A random 32-bit word, from words drawn in bulk: one getRandomValues costs about a microsecond, whatever its size. */
function randomWord(): number {
  if (randomAt === randomWords.length) {
    crypto.getRandomValues(randomWords);
    randomAt = 0;
  }
  return randomWords[randomAt++]!;
}

/** A random token naming one lease holder (16 bytes, hex). */
export function newToken(): string {
  let hex = '';
  for (let i = 0; i < 4; i++) hex += randomWord().toString(16).padStart(8, '0');
  return hex;
}
