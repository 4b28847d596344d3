import { tagOfGenerationKey } from '../key-space.ts';
import type { L1Copies } from './l1-copies.ts';

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
    this.#inFlight++;
    try {
      return await read();
    } finally {
      if (--this.#inFlight === 0) this.#invalidatedAt.clear();
    }
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
