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
 * The L1 tier's memory: decoded entries by full key, least recently used first out, bounded by
 * entries and by bytes (an entry's stored size stands in for its decoded size, which JavaScript
 * cannot measure). An index from tag to keys lets a tag invalidation evict what records it.
 * Nothing kept here is a view into a store's reply (the prefix is copied; the decoded value
 * keeps no view of a buffer larger than its entry, see EntryCodec.decode), so the bound holds
 * for the memory really retained.
 */
export class L1Copies {
  readonly #copies = new Map<string, L1Copy>();
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

  /** The copy under `full`, now the most recently used. */
  get(full: string): L1Copy | undefined {
    const copy = this.#copies.get(full);
    if (copy === undefined) return undefined;
    this.#copies.delete(full);
    this.#copies.set(full, copy);
    return copy;
  }

  /** Keeps `entry`, read from `bytes`, under `full`, evicting the least recently used beyond the bounds. */
  set(full: string, bytes: Uint8Array, entry: DecodedEntry): void {
    this.delete(full);
    const size = bytes.length + full.length * 2;
    if (size > this.maxBytes || bytes.length < VERSION_PREFIX_BYTES) return;
    // A copy of the prefix in a buffer of its own: `bytes` may be a view into a store's reply
    // chunk, which a view kept here would hold alive, uncounted (Buffer#slice is such a view).
    this.#copies.set(full, { entry, prefix: new Uint8Array(bytes.subarray(0, VERSION_PREFIX_BYTES)), size });
    this.#bytes += size;
    for (const { tag } of entry.tags) {
      let keys = this.#byTag.get(tag);
      if (keys === undefined) this.#byTag.set(tag, (keys = new Set()));
      keys.add(full);
    }
    for (const [oldest] of this.#copies) {
      if (this.#copies.size <= this.maxEntries && this.#bytes <= this.maxBytes) break;
      this.delete(oldest);
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
