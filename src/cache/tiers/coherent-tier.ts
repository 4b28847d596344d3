import type { Coherence, CoherenceListener, CoherenceOptions, Store } from '../../store/types.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import { type KeyWatch, KeyWatches } from './coherent-watches.ts';
import type { L1Copies } from './l1-copies.ts';
import { InvalidatedTier } from './reads-in-flight.ts';
import type { RemoteRead, RemoteReads } from './remote-reads.ts';
import type { Tier, TierRead } from './tier.ts';

const NO_COUNTERS: readonly string[] = Object.freeze([]);

/** What the coherent tier reports to the engine: its tier-hosting role (`TierHosting`, src/cache/roles/tier-hosting.ts). */
export interface CoherentHost {
  /** A read that a copy could have answered went to the store: coherence was not confirmed. */
  bypassed(): void;
  /** Copies are served again (true), or no longer (false). */
  coherenceChanged(live: boolean): void;
}

/**
 * A cache's registration with its store's coherence bus, made before the tier exists (the
 * store path's write layer needs it first), its callbacks relayed to the tier once it does.
 */
export function openCoherence(store: Store, options: CoherenceOptions): { coherence: Coherence; attach(tier: CoherenceListener): void } {
  let target: CoherenceListener | undefined;
  const coherence = store.coherence!(
    {
      invalidated: (keys) => target?.invalidated(keys),
      flushed: () => target?.flushed(),
      liveChanged: (live) => target?.liveChanged(live),
    },
    options,
  );
  return { coherence, attach: (tier) => void (target = tier) };
}

/**
 * L1 with `consistency: 'coherent'`: copies served with no round trip that are never stale with
 * respect to the writes of any cache sharing the store (Store.coherence: leases with
 * acknowledged invalidation over pub/sub on Valkey/Redis, the change counter on SQLite). A write
 * returns once every other process that may hold what it changed has dropped it, or has stopped
 * serving (its lease ran out); this tier serves a copy only while its own process holds the
 * lease (`confirm: 'barrier'`: once a barrier sent after the read began came back instead).
 *
 * A read becomes a copy only when every key it depends on (its entry and its tags' generation
 * counters) was watched on the bus since before the read was issued, nothing it depends on was
 * invalidated while it was in flight, nothing was flushed and the session did not change. While
 * coherence is not confirmed (the bus down, the lease lapsed) nothing is served from memory and
 * memory is flushed: every such read is counted as bypassed.
 */
export class CoherentTier extends InvalidatedTier implements Tier, CoherenceListener {
  readonly #coherence: Coherence;
  readonly #barrier: boolean;
  readonly #watches = new KeyWatches();

  constructor(
    remote: RemoteReads,
    copies: L1Copies,
    coherence: Coherence,
    confirm: CoherenceOptions['confirm'],
    prefix: string,
    private readonly host: CoherentHost,
  ) {
    super(remote, copies, prefix);
    this.#coherence = coherence;
    this.#barrier = confirm === 'barrier';
    if (!remote.synchronous || this.#barrier) {
      this.readNow = undefined;
      this.readManyNow = undefined;
    }
  }

  read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    const copy = this.#served(full);
    if (copy !== undefined) {
      if (!this.#barrier) return Promise.resolve({ entry: copy, snapshot: undefined });
      const session = this.#coherence.session;
      const issued = this.reads.issued;
      return this.#coherence.barrier().then((confirmed) => {
        // Served only when nothing dropped it while the barrier travelled.
        if (confirmed && this.#coherence.session === session && !this.reads.changedSince(issued, full, []) && this.copies.get(full)?.entry === copy) return { entry: copy, snapshot: undefined };
        return this.#fetch(key, full, tags);
      });
    }
    return this.#fetch(key, full, tags);
  }

  readNow?(key: string, full: string, tags: readonly string[]): TierRead {
    const copy = this.#served(full);
    if (copy !== undefined) return { entry: copy, snapshot: undefined };
    const session = this.#coherence.session;
    const mark = this.#coherence.mark;
    const issued = this.reads.issued;
    const found = this.remote.readNow(key, full, tags);
    this.#keep(full, found, session, mark, issued);
    return found;
  }

  /** Copies where they may be served; the rest in one round trip. */
  async readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    const serving = !this.#barrier && this.#coherence.serving();
    const batch = this.batch(keys, fulls, serving);
    if (batch.complete) return batch.entries;
    if (!serving && !this.#barrier) this.host.bypassed();
    return batch.filled(await this.remote.readMany(batch.keys, batch.fulls));
  }

  readManyNow?(keys: readonly string[], fulls: readonly string[]): Array<DecodedEntry | undefined> {
    const serving = this.#coherence.serving();
    const batch = this.batch(keys, fulls, serving);
    if (batch.complete) return batch.entries;
    if (!serving) this.host.bypassed();
    return batch.filled(this.remote.readManyNow(batch.keys, batch.fulls));
  }

  /**
   * This process writes `bytes`, an untagged entry, under `full` (its copy forgotten already);
   * `written` is that write as the store path returns it, settled once its invalidation was
   * acknowledged. Once it is, what it wrote becomes the copy, as a read of `full` issued now
   * would: the write executes after every write another process had made return (their
   * invalidations reached this process before they returned, and are either behind the copy
   * forgotten now or arrive later, as for a read in flight), so the copy is what the store
   * holds, unless another write of `full` executes after it; that write's invalidation reaches
   * this process before it returns, and is either remembered here as it arrives while the write
   * is in flight (the copy is then not kept) or drops the copy afterwards. So the copy is kept
   * under the conditions of a read's (nothing invalidated or flushed since, the same session,
   * `full` watched since before for a copy of this process: a write alone does not make its
   * process a holder, which other writers would then wait for), and the next read of what this
   * process just wrote is a hit instead of a round trip. A tagged entry is not kept: it depends
   * on generation counters read before the write.
   */
  wrote(key: string, full: string, bytes: Uint8Array, written: Promise<unknown>): void {
    const coherence = this.#coherence;
    const session = coherence.session;
    const mark = coherence.mark;
    const reads = this.reads;
    const issued = reads.issued;
    reads.begin();
    written.then(
      () => {
        if (coherence.session === session && !reads.changedSince(issued, full, NO_COUNTERS) && coherence.covered([full], mark, false)) {
          const entry = this.remote.decodeWritten(key, bytes);
          if (entry !== undefined && entry.tags.length === 0) this.copies.set(full, bytes, entry);
        }
        reads.end();
      },
      () => reads.end(),
    );
  }

  async close(): Promise<void> {
    this.copies.clear();
    this.#watches.all();
    await this.#coherence.close();
  }

  /**
   * A watch of `full` when the bus will tell this process of its next change: copies are being
   * served (the bus is live, and any loss of it flushes, which resolves every watch) and the
   * channel of `full` is confirmed subscribed. Otherwise undefined, and the channel is asked
   * for, so that the next watch of it can be given. A read issued after the watch was opened
   * that misses the entry means its write is still to come, and will be heard.
   */
  watch(full: string): KeyWatch | undefined {
    const coherence = this.#coherence;
    if (!coherence.serving() || !coherence.covered([full], coherence.mark)) return undefined;
    return this.#watches.open(full);
  }

  // CoherenceListener -------------------------------------------------------------------------

  override invalidated(keys: readonly string[]): void {
    super.invalidated(keys);
    this.#watches.changed(keys);
  }

  override flushed(): void {
    super.flushed();
    this.#watches.all();
  }

  liveChanged(live: boolean): void {
    if (!live) this.flushed();
    this.host.coherenceChanged(live);
  }

  // internals ---------------------------------------------------------------------------------

  /** The copy of `full` when one may be served now (barrier mode: once the barrier is back); counts a bypass otherwise. */
  #served(full: string): DecodedEntry | undefined {
    if (this.#barrier || this.#coherence.serving()) return this.copies.get(full)?.entry;
    this.host.bypassed();
    return undefined;
  }

  #fetch(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    const session = this.#coherence.session;
    const mark = this.#coherence.mark;
    const issued = this.reads.issued;
    return this.reads.during(async () => {
      const found = await this.remote.read(key, full, tags);
      this.#keep(full, found, session, mark, issued);
      return found;
    });
  }

  /** Keeps what a read issued at (`session`, `mark`, `issued`) found, when nothing it depends on can have changed unseen since. */
  #keep(full: string, found: RemoteRead, session: number, mark: number, issued: number): void {
    if (found.entry === undefined || found.bytes === undefined) return;
    const coherence = this.#coherence;
    const counters = found.counters;
    if (coherence.session !== session || this.reads.changedSince(issued, full, counters)) return;
    if (!coherence.covered(counters.length === 0 ? [full] : [full, ...counters], mark)) return;
    this.copies.set(full, found.bytes, found.entry);
  }
}
