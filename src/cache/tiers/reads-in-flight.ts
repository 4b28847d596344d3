import { tagOfGenerationKey } from '../key-space.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import type { L1Copies } from './l1-copies.ts';
import type { RemoteReads } from './remote-reads.ts';
import type { TagSnapshot } from './tier.ts';

/**
 * Keys whose invalidation is remembered for the reads in flight, at most: 10,000 keys is about a
 * megabyte of strings. Past it they are forgotten at once, which costs only copies (the reads in
 * flight then are not kept), never a stale one.
 */
const MAX_REMEMBERED = 10_000;

/**
 * The bookkeeping the tiers whose copies are invalidated by messages (tracking, coherent) share:
 * invalidations travel apart from the replies they concern, so one can arrive before the reply
 * of a read it outdates. A read notes {@link issued} when it starts; its reply becomes a copy
 * only when nothing it depends on (its entry, its tags' generation counters) was invalidated,
 * and nothing flushed, since ({@link changedSince}).
 *
 * Invalidations are remembered while reads are in flight ({@link during}), emptied once none
 * is, and bounded for when reads always overlap (a busy process may never have none in flight):
 * past {@link MAX_REMEMBERED} keys they are forgotten, and the reads in flight then keep no copy.
 */
export class ReadsInFlight {
  /** Counts invalidations and flushes; a read notes it when issued. */
  #seq = 0;
  #flushedAt = 0;
  /** The last invalidation of each key the reads in flight might depend on. */
  readonly #invalidatedAt = new Map<string, number>();
  /** When {@link #invalidatedAt} was last emptied while reads were in flight: those reads may have missed one. */
  #forgottenAt = 0;
  #inFlight = 0;

  constructor(
    private readonly copies: L1Copies,
    private readonly prefix: string,
  ) {}

  /** What a read notes when it is issued, for {@link changedSince}. */
  get issued(): number {
    return this.#seq;
  }

  /** Invalidations remembered for the reads in flight (bounded by {@link MAX_REMEMBERED}). */
  get remembered(): number {
    return this.#invalidatedAt.size;
  }

  /** Runs `read` as a read in flight: the invalidations that arrive meanwhile are remembered. */
  async during<T>(read: () => Promise<T>): Promise<T> {
    this.begin();
    try {
      return await read();
    } finally {
      this.end();
    }
  }

  /** Counts a read in flight from now until {@link end}: {@link during} where the caller settles it itself. */
  begin(): void {
    this.#inFlight++;
  }

  /** The read counted by {@link begin} is settled (its {@link changedSince} asked already). */
  end(): void {
    if (--this.#inFlight === 0) this.#invalidatedAt.clear();
  }

  /** True when a read issued at `issued` of `full` (recording `counters`) may have missed an invalidation. */
  changedSince(issued: number, full: string, counters: readonly string[]): boolean {
    if (this.#flushedAt > issued || this.#forgottenAt > issued || (this.#invalidatedAt.get(full) ?? 0) > issued) return true;
    for (const counter of counters) if ((this.#invalidatedAt.get(counter) ?? 0) > issued) return true;
    return false;
  }

  /** These store keys changed: their copies go, and for a generation counter of this cache every copy recording its tag. */
  invalidated(keys: readonly string[]): void {
    const seq = ++this.#seq;
    for (const key of keys) {
      if (this.#inFlight > 0) {
        if (this.#invalidatedAt.size >= MAX_REMEMBERED) {
          this.#invalidatedAt.clear();
          this.#forgottenAt = seq;
        }
        this.#invalidatedAt.set(key, seq);
      }
      this.copies.delete(key);
      const tag = tagOfGenerationKey(this.prefix, key);
      if (tag !== undefined) this.copies.deleteTagged(tag);
    }
  }

  /** Anything may have changed: every copy goes, and no read issued before is kept. */
  flushed(): void {
    this.#flushedAt = ++this.#seq;
    this.copies.clear();
  }
}

/**
 * What the tiers invalidated by messages (tracking, coherent) do alike: their own writes,
 * invalidations and flushes drop copies through one {@link ReadsInFlight}; reading is theirs.
 */
export abstract class InvalidatedTier {
  protected readonly reads: ReadsInFlight;

  constructor(
    protected readonly remote: RemoteReads,
    protected readonly copies: L1Copies,
    prefix: string,
  ) {
    this.reads = new ReadsInFlight(copies, prefix);
  }

  /** Invalidations remembered for the reads in flight (bounded: see {@link ReadsInFlight}). */
  get remembered(): number {
    return this.reads.remembered;
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return this.remote.snapshot(tags);
  }

  /** A write of this process: the copy goes. */
  forget(fulls: readonly string[]): void {
    this.invalidated(fulls);
  }

  tagsInvalidated(tags: readonly string[]): void {
    this.invalidated(tags.map((tag) => this.remote.keysOf(tag).generation));
  }

  cleared(): void {
    this.flushed();
  }

  /** A batch read's copies where `serving` (not kept afterwards: a batch is not worth the bookkeeping), and what is left to read. */
  protected batch(keys: readonly string[], fulls: readonly string[], serving: boolean): Batch {
    return new Batch(keys, fulls, serving ? this.copies : undefined);
  }

  /** The store says these keys changed. */
  invalidated(keys: readonly string[]): void {
    this.reads.invalidated(keys);
  }

  /** The store says anything may have changed. */
  flushed(): void {
    this.reads.flushed();
  }
}

/** One batch read of a tier: the copies found, and the keys and full keys of the holes, for one round trip. */
export class Batch {
  readonly entries: Array<DecodedEntry | undefined>;
  readonly #missing: number[] = [];
  /** Keys and full keys of the holes, in order. */
  readonly keys: string[] = [];
  readonly fulls: string[] = [];

  constructor(keys: readonly string[], fulls: readonly string[], copies: L1Copies | undefined) {
    this.entries = fulls.map((full) => copies?.get(full)?.entry);
    for (let i = 0; i < fulls.length; i++) {
      if (this.entries[i] !== undefined) continue;
      this.#missing.push(i);
      this.keys.push(keys[i]!);
      this.fulls.push(fulls[i]!);
    }
  }

  /** True when every entry was a copy. */
  get complete(): boolean {
    return this.#missing.length === 0;
  }

  /** The entries with the holes' answers (in the order of {@link keys}) put in. */
  filled(read: ReadonlyArray<DecodedEntry | undefined>): Array<DecodedEntry | undefined> {
    for (let j = 0; j < this.#missing.length; j++) this.entries[this.#missing[j]!] = read[j];
    return this.entries;
  }
}
