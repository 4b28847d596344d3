import type { Clock } from '../clock.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import type { CacheStats } from '../events.ts';
import type { LocationCopies, LocationCopy } from './location-copies.ts';
import type { RemoteRead, RemoteReads } from './remote-reads.ts';
import { readEach, type TagSnapshot, type Tier, type TierRead } from './tier.ts';

/** How many keys (and tags) this isolate remembers having copied or changed, for its own changes to reach them. */
const MAX_KNOWN = 10_000;

/**
 * The per-location tier (`locationCache`, docs/location-cache.md): copies of stored entries in
 * the location's Cache API, shared by every isolate the location runs, in front of a remote
 * store (Workers KV, Upstash). A copy is checked as the strict L1 checks its memory: one store
 * read that carries the copy's first bytes and the tags it records, which a store comparing
 * server-side (Upstash, Valkey) answers with "unchanged" and no value, and a store without that
 * capability (KV) answers by reading the entry as usual. `verified` checks at every read;
 * `bounded` serves a copy confirmed less than `maxAgeMs` ago without the store.
 *
 * This isolate's own writes, deletes, invalidations and clears are seen by its next read at
 * once: a copy confirmed before one of them is checked with the store, never served unconfirmed
 * (the times of those changes are kept here, not awaited: on Workers a read must not wait on
 * another request's I/O). They also delete the copies this isolate knows of (those it read or
 * put), for the location's other isolates. Every other copy, in this location or another,
 * learns of a change only through the store read that checks it: at the next read in
 * `verified`, within `maxAgeMs` in `bounded`.
 */
export class LocationTier implements Tier {
  /** The copies this isolate read or put, with the tags each records (oldest first). */
  readonly #known = new Map<string, readonly string[]>();
  /** When this isolate last changed each key, and each tag (oldest first); `bounded` only. */
  readonly #keyChanged = new Map<string, number>();
  readonly #tagChanged = new Map<string, number>();
  /** When this isolate last cleared the cache. */
  #clearedAt = Number.NEGATIVE_INFINITY;
  /** Bumped by every local change: a read that started before one does not put what it read. */
  #changes = 0;

  constructor(
    private readonly remote: RemoteReads,
    private readonly copies: LocationCopies,
    private readonly clock: Clock,
    private readonly maxAgeMs: number,
    private readonly counters: CacheStats,
    private readonly keepAlive: (work: Promise<unknown>) => void,
  ) {}

  async read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    if (!this.copies.copies(full)) return this.remote.read(key, full, tags);
    const changes = this.#changes;
    const issued = this.clock.now();
    const copy = await this.copies.get(key, full);
    if (copy !== undefined) {
      this.#know(full, copy.entry);
      if (this.#servable(full, copy, issued)) {
        this.counters.locationUnconfirmed++;
        return { entry: copy.entry, snapshot: undefined };
      }
    }
    const found = await this.#confirm(key, full, tags, copy);
    if (changes === this.#changes) await this.#keep(full, copy, found, issued);
    return found;
  }

  /** True when `bounded` may serve `copy` unconfirmed at `now`: confirmed less than maxAge ago, and after every change this isolate made to it. */
  #servable(full: string, copy: LocationCopy, now: number): boolean {
    const at = copy.confirmedAt;
    // A clock that went back counts as expired: the bound is never stretched.
    if (!(this.maxAgeMs > 0 && now >= at && now - at < this.maxAgeMs && at > this.#clearedAt)) return false;
    if (!(at > (this.#keyChanged.get(full) ?? Number.NEGATIVE_INFINITY))) return false;
    return copy.entry.tags.every(({ tag }) => at > (this.#tagChanged.get(tag) ?? Number.NEGATIVE_INFINITY));
  }
  /** Reads through the store, carrying the copy (when there is one) for the store to confirm. */
  #confirm(key: string, full: string, tags: readonly string[], copy: LocationCopy | undefined): Promise<RemoteRead> {
    if (copy === undefined) return this.remote.read(key, full, tags);
    return this.remote.read(
      key,
      full,
      tags,
      copy,
      copy.entry.tags.map((recorded) => recorded.tag),
    );
  }

  /** Updates the copy after a store read: dropped when the entry is gone or outdated, replaced when it changed, re-dated in `bounded` when confirmed. */
  async #keep(full: string, copy: LocationCopy | undefined, found: RemoteRead, issued: number): Promise<void> {
    if (found.entry === undefined) {
      if (copy !== undefined) this.#drop(full);
      return;
    }
    if (found.bytes !== undefined) {
      // The entry's own bytes: a copy of them, or a replacement of an older one.
      this.#know(full, found.entry);
      await this.copies.put(full, found.bytes, found.entry, issued, this.clock.now());
      return;
    }
    if (copy === undefined) return;
    this.counters.locationConfirmed++;
    // Verified copies need no date; a bounded one is served again for maxAge from this read.
    if (this.maxAgeMs > 0) await this.copies.put(full, copy.bytes, copy.entry, issued, this.clock.now());
  }

  /** Each key read like {@link read}. */
  readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    return readEach(this, keys, fulls);
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return this.remote.snapshot(tags);
  }

  forget(fulls: readonly string[]): void {
    this.#changes++;
    const now = this.clock.now();
    for (const full of fulls) {
      this.#noteChange(this.#keyChanged, full, now);
      this.#drop(full);
    }
  }

  tagsInvalidated(tags: readonly string[]): void {
    this.#changes++;
    const now = this.clock.now();
    for (const tag of tags) this.#noteChange(this.#tagChanged, tag, now);
    const invalidated = new Set(tags);
    for (const [full, recorded] of this.#known) if (recorded.some((tag) => invalidated.has(tag))) this.#drop(full);
  }

  cleared(): void {
    this.#changes++;
    this.#clearedAt = this.clock.now();
    this.#keyChanged.clear();
    this.#tagChanged.clear();
    for (const full of [...this.#known.keys()]) this.#drop(full);
  }

  async close(): Promise<void> {}

  /** Notes that `full` has a copy here recording `entry`'s tags. */
  #know(full: string, entry: DecodedEntry): void {
    this.#known.delete(full);
    if (this.#known.size >= MAX_KNOWN) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(
      full,
      entry.tags.map((recorded) => recorded.tag),
    );
  }

  /**
   * Notes that `name` changed at `now`, in `bounded`. A change older than maxAge no longer
   * matters (every copy confirmed before it has run out its bound), so those go first; past
   * {@link MAX_KNOWN} recent ones the oldest is forgotten.
   */
  #noteChange(changed: Map<string, number>, name: string, now: number): void {
    if (this.maxAgeMs === 0) return;
    changed.delete(name);
    for (const [oldest, at] of changed) {
      if (changed.size < MAX_KNOWN && now - at < this.maxAgeMs) break;
      changed.delete(oldest);
    }
    changed.set(name, now);
  }

  /** Deletes the copy of `full` from the location, in the background (the platform keeps it alive past the response). */
  #drop(full: string): void {
    this.#known.delete(full);
    this.keepAlive(this.copies.delete(full));
  }
}
