import type { InvalidationListener, Store, Tracking } from '../../store/types.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import { tagOfGenerationKey } from '../key-space.ts';
import type { L1Copies } from './l1-copies.ts';
import type { RemoteReads } from './remote-reads.ts';
import type { TagSnapshot, Tier, TierRead } from './tier.ts';

/**
 * L1 with `consistency: 'tracking'`: copies are served from memory with no round trip, and the
 * server says when they change (Store.track: CLIENT TRACKING on Valkey/Redis). Every key a copy
 * depends on — its entry and the generation counters of its tags — was read on the tracked
 * connection, so a write to any of them evicts it.
 *
 * Invalidations travel on another connection than the replies they concern, so a read's
 * invalidation can arrive before its reply. A read therefore becomes a copy only when nothing
 * it depends on was invalidated while it was in flight, no flush happened, and tracking stayed
 * live throughout (the same session). While tracking is not live (either connection down, not
 * yet confirmed) nothing is served from memory and nothing is kept: no copy ever outlives a
 * gap in which its invalidation could have been lost. What stays is the delivery delay of
 * one invalidation message (bench/race measures it).
 */
export class TrackingTier implements Tier, InvalidationListener {
  readonly #tracking: Tracking;
  /** Counts invalidations; a read notes it when issued. */
  #seq = 0;
  #flushedAt = 0;
  /**
   * While reads are in flight: the last invalidation of each key they might depend on. Emptied
   * when no read is in flight, and bounded for when reads always overlap (a busy process may
   * never have none in flight): past {@link MAX_REMEMBERED} keys it is emptied too, and the reads
   * in flight then keep no copy (see {@link #forgottenAt}).
   */
  readonly #invalidatedAt = new Map<string, number>();
  /** The invalidation at which {@link #invalidatedAt} was last emptied while reads were in flight: those reads may have missed one. */
  #forgottenAt = 0;
  #inFlight = 0;
  readonly #prefix: string;

  constructor(
    private readonly remote: RemoteReads,
    private readonly copies: L1Copies,
    store: Store,
    prefix: string,
  ) {
    this.#prefix = prefix;
    this.#tracking = store.track!(this);
  }

  /** Invalidations remembered for the reads in flight (bounded by {@link MAX_REMEMBERED}). */
  get remembered(): number {
    return this.#invalidatedAt.size;
  }

  /** True while copies may be served (the store delivers invalidations). */
  get live(): boolean {
    return this.#tracking.live;
  }

  async read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    const tracking = this.#tracking;
    const live = tracking.live;
    if (live) {
      const copy = this.copies.get(full);
      if (copy !== undefined) return { entry: copy.entry, snapshot: undefined };
    }
    const session = tracking.session;
    const issued = this.#seq;
    this.#inFlight++;
    try {
      const found = await this.remote.read(key, full, tags);
      if (live && found.entry !== undefined && found.bytes !== undefined && tracking.live && tracking.session === session && !this.#changedSince(issued, full, found.counters)) {
        this.copies.set(full, found.bytes, found.entry);
      }
      return found;
    } finally {
      if (--this.#inFlight === 0) this.#invalidatedAt.clear();
    }
  }

  /** Copies where live; the rest in one round trip (not kept: a batch is not worth the bookkeeping). */
  async readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    const live = this.#tracking.live;
    const entries = fulls.map((full) => (live ? this.copies.get(full)?.entry : undefined));
    const missing = entries.flatMap((e, i) => (e === undefined ? [i] : []));
    if (missing.length === 0) return entries;
    const read = await this.remote.readMany(
      missing.map((i) => keys[i]!),
      missing.map((i) => fulls[i]!),
    );
    for (let j = 0; j < missing.length; j++) entries[missing[j]!] = read[j];
    return entries;
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return this.remote.snapshot(tags);
  }

  /** A write of this process: the copy goes (a copy is only ever made from a read, which the server then tracks). */
  forget(fulls: readonly string[]): void {
    this.invalidated(fulls);
  }

  tagsInvalidated(tags: readonly string[]): void {
    this.invalidated(tags.map((tag) => this.remote.keysOf(tag).generation));
  }

  cleared(): void {
    this.flushed();
  }

  async close(): Promise<void> {
    this.copies.clear();
    await this.#tracking.close();
  }

  // InvalidationListener ----------------------------------------------------------------------

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
      // A generation counter of this cache: every copy recording the tag goes.
      const tag = tagOfGenerationKey(this.#prefix, key);
      if (tag !== undefined) this.copies.deleteTagged(tag);
    }
  }

  flushed(): void {
    this.#flushedAt = ++this.#seq;
    this.copies.clear();
  }

  liveChanged(live: boolean): void {
    if (!live) this.flushed();
  }

  #changedSince(issued: number, full: string, counters: readonly string[]): boolean {
    if (this.#flushedAt > issued || this.#forgottenAt > issued || (this.#invalidatedAt.get(full) ?? 0) > issued) return true;
    for (const counter of counters) if ((this.#invalidatedAt.get(counter) ?? 0) > issued) return true;
    return false;
  }
}

/**
 * Keys whose invalidation is remembered for the reads in flight, at most: 10,000 keys is about a
 * megabyte of strings. Past it they are forgotten at once, which costs only copies (the reads in
 * flight then are not kept), never a stale one.
 */
const MAX_REMEMBERED = 10_000;
