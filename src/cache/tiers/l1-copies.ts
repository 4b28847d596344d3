import { VERSION_PREFIX_BYTES } from '../../store/layout/envelope.ts';
import type { DecodedEntry } from '../entry-codec.ts';

/** One entry held in process memory: what it decoded to, and the stored bytes' first bytes. */
export interface L1Copy {
  readonly entry: DecodedEntry;
  /** The first {@link VERSION_PREFIX_BYTES} stored bytes: enough to tell this stored version from any other. */
  readonly prefix: Uint8Array;
  /** What it counts against `maxBytes`: its stored size plus its key. */
  readonly size: number;
}

/**
 * The L1 tier's memory: decoded entries by full key, bounded by entries and by bytes (an entry's
 * stored size stands in for its decoded size, which JavaScript cannot measure). What goes first
 * is the least recently used, as a clock with second chances tells it (CLOCK, Corbató 1968): a
 * hit only marks its copy as used, and eviction, walking from the oldest insertion, moves a
 * marked copy to the back once instead of evicting it. A hit therefore changes no map (moving
 * the copy to the back on every hit, a delete and a set, was a quarter of a hit's CPU), and a
 * copy goes only once it was not used since eviction last passed it. An index from tag to keys lets a tag invalidation evict what records it.
 * Nothing kept here is a view into a store's reply (the prefix is copied; the decoded value
 * keeps no view of a buffer larger than its entry, see EntryCodec.decode), so the bound holds
 * for the memory really retained.
 */
export class L1Copies {
  readonly #copies = new Map<string, Held>();
  readonly #byTag = new Map<string, Set<string>>();
  #bytes = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /** Entries held. */
  get size(): number {
    return this.#copies.size;
  }

  /** Bytes counted. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The copy under `full`, now marked as used. */
  get(full: string): L1Copy | undefined {
    const copy = this.#copies.get(full);
    if (copy !== undefined) copy.used = true;
    return copy;
  }

  /** Keeps `entry`, read from `bytes`, under `full`, evicting the least recently used beyond the bounds. */
  set(full: string, bytes: Uint8Array, entry: DecodedEntry): void {
    this.delete(full);
    const size = bytes.length + full.length * 2;
    if (size > this.maxBytes || bytes.length < VERSION_PREFIX_BYTES) return;
    // A copy of the prefix in a buffer of its own: `bytes` may be a view into a store's reply
    // chunk, which a view kept here would hold alive, uncounted (Buffer#slice is such a view).
    this.#copies.set(full, new Held(entry, new Uint8Array(bytes.subarray(0, VERSION_PREFIX_BYTES)), size));
    this.#bytes += size;
    for (const { tag } of entry.tags) {
      let keys = this.#byTag.get(tag);
      if (keys === undefined) this.#byTag.set(tag, (keys = new Set()));
      keys.add(full);
    }
    this.#evict(full);
  }

  /**
   * Evicts from the oldest insertion until within the bounds, but `kept` (just inserted, and
   * alone within them): a copy marked as used since it was last passed is moved to the back,
   * unmarked, instead. Ends: each copy is moved at most once (a moved copy is passed again
   * unmarked, after every other, and goes then if the bounds still say so).
   */
  #evict(kept: string): void {
    const copies = this.#copies;
    for (const [oldest, copy] of copies) {
      if (copies.size <= this.maxEntries && this.#bytes <= this.maxBytes) return;
      if (oldest === kept) continue;
      if (copy.used) {
        copy.used = false;
        copies.delete(oldest);
        copies.set(oldest, copy);
      } else this.delete(oldest);
    }
  }

  /** Forgets the copy under `full`. */
  delete(full: string): void {
    const copy = this.#copies.get(full);
    if (copy === undefined) return;
    this.#copies.delete(full);
    this.#bytes -= copy.size;
    for (const { tag } of copy.entry.tags) {
      const keys = this.#byTag.get(tag);
      keys?.delete(full);
      if (keys?.size === 0) this.#byTag.delete(tag);
    }
  }

  /** Forgets every copy that records `tag`. */
  deleteTagged(tag: string): void {
    const keys = this.#byTag.get(tag);
    if (keys) for (const full of [...keys]) this.delete(full);
  }

  /** Forgets everything. */
  clear(): void {
    this.#copies.clear();
    this.#byTag.clear();
    this.#bytes = 0;
  }
}

/** A copy as the map holds it: with the mark a hit sets and eviction clears. */
class Held implements L1Copy {
  /** Used since eviction last passed it (or since it was kept). */
  used = false;

  constructor(
    readonly entry: DecodedEntry,
    readonly prefix: Uint8Array,
    readonly size: number,
  ) {}
}
