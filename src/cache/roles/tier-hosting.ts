import { errorMessage } from '../../store/errors.ts';
import { handOff } from '../background.ts';
import type { Clock } from '../clock.ts';
import type { DecodedEntry, EntryCodec } from '../entry-codec.ts';
import type { CacheEvents, CacheStats } from '../events.ts';
import { unwrapped } from './versioned.ts';
import type { ResolvedOptions } from '../options.ts';
import type { GenerationLayer } from '../path/generations.ts';
import { BoundedTier } from '../tiers/bounded-tier.ts';
import { CoherentTier, type CoherentHost, type openCoherence } from '../tiers/coherent-tier.ts';
import { L1Copies } from '../tiers/l1-copies.ts';
import { LocationCopies } from '../tiers/location-copies.ts';
import { LocationTier } from '../tiers/location-tier.ts';
import { RemoteReads } from '../tiers/remote-reads.ts';
import { SingleTier } from '../tiers/single-tier.ts';
import { StrictTier } from '../tiers/strict-tier.ts';
import type { Tier, TierHost } from '../tiers/tier.ts';
import { TrackingTier } from '../tiers/tracking-tier.ts';

/** What the tiers' host reads: the codec, and the counters and events it reports into. */
export interface TierHostingContext {
  readonly codec: EntryCodec;
  readonly counters: CacheStats;
  readonly events: CacheEvents;
}

/**
 * The engine as the tiers see it (docs/architecture.md#the-engine): stored bytes decoded and
 * counted (an unreadable entry reported as corrupt), outdated entries and the coherent L1's
 * bypasses and changes of state reported.
 */
export class TierHosting implements TierHost, CoherentHost {
  readonly #ctx: TierHostingContext;
  /** How far a decoded value may view beyond its entry's bytes (see EntryCodec.decode); undefined: the codec's default. */
  readonly #slack: number | undefined;

  constructor(ctx: TierHostingContext, slack: number | undefined) {
    this.#ctx = ctx;
    this.#slack = slack;
  }

  /** Decodes `bytes`, counting it as read unless `written` (TierHost.decode); an unreadable entry is counted as corrupt. */
  decode(key: string, bytes: Uint8Array | undefined, written = false): DecodedEntry | undefined {
    if (bytes === undefined) return undefined;
    const { counters } = this.#ctx;
    if (!written) counters.bytesRead += bytes.length;
    try {
      const entry = this.#ctx.codec.decode(bytes, this.#slack);
      return unwrapped(entry);
    } catch (error) {
      counters.corrupt++;
      this.#ctx.events.emit('corrupt', { key, reason: errorMessage(error) });
      return undefined;
    }
  }

  outdated(key: string, tags: readonly string[]): void {
    this.#ctx.counters.outdated++;
    if (this.#ctx.events.listens('outdated')) this.#ctx.events.emit('outdated', { key, tags });
  }

  bypassed(): void {
    this.#ctx.counters.l1Bypassed++;
  }

  coherenceChanged(live: boolean): void {
    this.#ctx.events.emit('coherence', { live });
  }
}

/** The read side a cache's options choose, over the top of its store path. */
export interface OpenedTier {
  readonly tier: Tier;
  /** The remote reads beneath it (the write fences take tag keys from them). */
  readonly remote: RemoteReads;
}

/**
 * Opens the {@link Tier} of the cache's topology: the store alone, or an L1 in front of it
 * (strict, tracking, bounded or coherent, over the coherence `bus` opened with the path), or
 * the per-location tier in the Cache API.
 */
export function openTier(ctx: TierHostingContext & { readonly options: ResolvedOptions; readonly clock: Clock }, path: GenerationLayer, bus: ReturnType<typeof openCoherence> | undefined): OpenedTier {
  const { options } = ctx;
  const prefix = options.keyPrefix;
  const { l1, locationCache } = options;
  if (locationCache) {
    const remote = new RemoteReads(path, prefix, new TierHosting(ctx, undefined));
    const copies = new LocationCopies(locationCache.cache, locationCache.maxBytes, (key, bytes) => remote.decodeWritten(key, bytes));
    const keepAlive = (work: Promise<unknown>) => handOff(work, undefined, options.waitUntil);
    return { tier: new LocationTier(remote, copies, ctx.clock, locationCache.maxAgeMs, ctx.counters, keepAlive), remote };
  }
  if (!l1) {
    const remote = new RemoteReads(path, prefix, new TierHosting(ctx, undefined));
    return { tier: new SingleTier(remote), remote };
  }
  const copies = new L1Copies(l1.maxEntries, l1.maxBytes);
  // What an L1 keeps is decoded into values that view nothing beyond their entry's bytes.
  const hosting = new TierHosting(ctx, 0);
  const remote = new RemoteReads(path, prefix, hosting);
  if (bus) {
    const tier = new CoherentTier(remote, copies, bus.coherence, l1.confirm, prefix, hosting);
    bus.attach(tier);
    return { tier, remote };
  }
  if (l1.consistency === 'tracking') return { tier: new TrackingTier(remote, copies, path, prefix), remote };
  if (l1.consistency === 'bounded') return { tier: new BoundedTier(remote, copies, ctx.clock, l1.maxStalenessMs), remote };
  return { tier: new StrictTier(remote, copies), remote };
}
