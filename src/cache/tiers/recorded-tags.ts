import type { DecodedEntry } from '../entry-codec.ts';

/** Entries remembered before {@link RecordedTags} starts over. */
const MAX_ENTRIES = 4096;
/** Characters of keys and tag names remembered before it starts over: keys may be long URLs. */
const MAX_CHARS = 1 << 20;

/**
 * The tags each entry recorded when this process last read it, by full key. A plain read (one
 * that names no tags: `cache.get`, the HTTP cache's lookups) must still check every tag its
 * entry recorded, which it learns only from the entry: without this, a tagged entry costs a
 * second round trip for its tags. With it, the read asks for the entry and those tags'
 * generation counters in one plain read (one MGET; no script: a hit needs no fence state);
 * an entry rewritten with other tags since costs the second read once, as before. A hint
 * only chooses what is read with the entry: validation
 * still checks every tag the entry records, so a wrong or stale hint can never serve an
 * outdated entry. Bounded by entries and by characters (it is cleared when either is reached).
 */
export class RecordedTags {
  readonly #tags = new Map<string, readonly string[]>();
  #chars = 0;

  /**
   * The tags `full`'s entry recorded when last read here, or undefined. While nothing is
   * remembered (a cache that reads no tagged entries) the key is not looked up: a lookup hashes
   * it, a cost the plain get pays nowhere else (a new key string on every call).
   */
  of(full: string): readonly string[] | undefined {
    return this.#tags.size === 0 ? undefined : this.#tags.get(full);
  }

  /** Remembers what `full`'s entry records now (forgets it for an absent or untagged entry). */
  note(full: string, entry: DecodedEntry | undefined): void {
    const recorded = entry?.tags;
    if (recorded === undefined || recorded.length === 0) {
      if (this.#tags.size > 0) this.#tags.delete(full);
      return;
    }
    const known = this.#tags.get(full);
    if (known !== undefined && sameTags(known, recorded)) return;
    const names = new Array<string>(recorded.length);
    let chars = full.length;
    for (let i = 0; i < recorded.length; i++) chars += (names[i] = recorded[i]!.tag).length;
    if (this.#tags.size >= MAX_ENTRIES || this.#chars + chars > MAX_CHARS) {
      this.#tags.clear();
      this.#chars = 0;
    }
    this.#tags.set(full, names);
    this.#chars += chars;
  }
}

function sameTags(names: readonly string[], recorded: DecodedEntry['tags']): boolean {
  if (names.length !== recorded.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== recorded[i]!.tag) return false;
  return true;
}
