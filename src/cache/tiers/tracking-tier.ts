import type { InvalidationListener, Store, Tracking } from '../../store/types.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import type { L1Copies } from './l1-copies.ts';
import { InvalidatedTier } from './reads-in-flight.ts';
import type { RemoteReads } from './remote-reads.ts';
import type { Tier, TierRead } from './tier.ts';

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
export class TrackingTier extends InvalidatedTier implements Tier, InvalidationListener {
  readonly #tracking: Tracking;

  constructor(remote: RemoteReads, copies: L1Copies, store: Store, prefix: string) {
    super(remote, copies, prefix);
    this.#tracking = store.track!(this);
  }

  /** True while copies may be served (the store delivers invalidations). */
  get live(): boolean {
    return this.#tracking.live;
  }

  read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    const tracking = this.#tracking;
    const live = tracking.live;
    if (live) {
      const copy = this.copies.get(full);
      if (copy !== undefined) return Promise.resolve({ entry: copy.entry, snapshot: undefined });
    }
    const session = tracking.session;
    const reads = this.reads;
    const issued = reads.issued;
    return reads.during(async () => {
      const found = await this.remote.read(key, full, tags);
      if (live && found.entry !== undefined && found.bytes !== undefined && tracking.live && tracking.session === session && !reads.changedSince(issued, full, found.counters)) {
        this.copies.set(full, found.bytes, found.entry);
      }
      return found;
    });
  }

  /** Copies where live; the rest in one round trip. */
  async readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    const batch = this.batch(keys, fulls, this.#tracking.live);
    return batch.complete ? batch.entries : batch.filled(await this.remote.readMany(batch.keys, batch.fulls));
  }

  async close(): Promise<void> {
    this.copies.clear();
    await this.#tracking.close();
  }

  // InvalidationListener ----------------------------------------------------------------------

  liveChanged(live: boolean): void {
    if (!live) this.flushed();
  }
}
