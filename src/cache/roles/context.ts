import type { WaitUntil } from '../background.ts';
import { handOff } from '../background.ts';
import type { Clock } from '../clock.ts';
import { EntryCodec } from '../entry-codec.ts';
import { SealedEntryCodec } from '../encryption/sealed-codec.ts';
import { CacheEvents, emptyStats } from '../events.ts';
import { lifetimesOf, type Lifetimes } from './lifetimes.ts';
import { FillLeases } from '../leases/fill-leases.ts';
import type { ResolvedOptions } from '../options.ts';
import { buildPath } from '../path/build-path.ts';
import type { GenerationLayer } from '../path/generations.ts';
import type { GuardLayer } from '../path/guard.ts';
import { openCoherence } from '../tiers/coherent-tier.ts';
import type { RemoteReads } from '../tiers/remote-reads.ts';
import type { Tier } from '../tiers/tier.ts';
import type { GetOrSetOptions } from '../types.ts';
import { StoreReports } from './reports.ts';
import { openTier } from './tier-hosting.ts';

/**
 * The state of one cache (docs/architecture.md#the-engine), built once by `createCache` and
 * handed to each of the engine's roles: the resolved options and the clock, the codec, the
 * live counters and events, the store path and the tier chosen by topology over it, the fill
 * leases, the background work that close() waits for, and the reporting of store failures
 * (which the path's guard needs before the path exists). The roles hold it, not one another's
 * callbacks: a `getOrSet` miss goes from the fill handler to the reads and the writes directly.
 */
export class EngineContext {
  readonly options: ResolvedOptions;
  readonly clock: Clock;
  readonly codec: EntryCodec;
  readonly events = new CacheEvents();
  /** The live counters (`stats()` returns a copy). */
  readonly counters = emptyStats();
  /** Aborted when the cache closes (its reason is why): every running factory's `ctx.signal` follows it. */
  readonly closing = new AbortController();
  /**
   * The controllers of the factory runs in flight, aborted together by close(). A set rather
   * than a listener per run on `closing`: Node warns of a leak past ten listeners on one
   * AbortSignal, which any burst of eleven concurrent fills would print.
   */
  readonly factoryRuns = new Set<AbortController>();
  /** Background work (refreshes, a fill's write) that close() and idle() wait for. */
  readonly background = new Set<Promise<unknown>>();
  /** The lifetimes of a call that sets neither ttl nor grace, resolved once. */
  readonly defaults: Lifetimes;
  readonly reports: StoreReports;
  /** The top of the store path: generations → batcher → guard → store. */
  readonly path: GenerationLayer;
  readonly guard: GuardLayer;
  readonly tier: Tier;
  readonly remote: RemoteReads;
  /** Fill leases across processes, when the store can hold them. */
  readonly leases: FillLeases | undefined;

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.clock = options.clock;
    this.codec = new (options.encryption ? SealedEntryCodec : EntryCodec)(options.serializer, options.compression, options.maxValueBytes);
    const defaults: Lifetimes =
      options.staleIfErrorMs === undefined ? { freshFor: options.ttlMs, staleFor: options.graceMs } : { freshFor: options.ttlMs, staleFor: options.graceMs, errorFor: options.staleIfErrorMs };
    if (options.ttlJitter !== undefined) defaults.jitter = options.ttlJitter;
    this.defaults = defaults;
    this.reports = new StoreReports(this);
    const bus = options.l1?.consistency === 'coherent' ? openCoherence(options.store, { confirm: options.l1.confirm }) : undefined;
    const path = buildPath({
      store: options.store,
      closeStore: options.closeStore,
      batch: options.batch,
      timeoutMs: options.timeoutMs,
      threshold: options.breaker.threshold,
      cooldownMs: options.breaker.cooldownMs,
      clock: options.clock,
      reporter: this.reports,
      coherence: bus && { bus: bus.coherence, keyPrefix: options.keyPrefix },
      encryption: options.encryption,
    });
    this.path = path.top;
    this.guard = path.guard;
    const { tier, remote } = openTier(this, this.path, bus);
    this.tier = tier;
    this.remote = remote;
    const reports = this.reports;
    // With a bus, an abandoned lease is announced on it: the waiters it wakes do not poll.
    const announce = bus && ((full: string) => bus.coherence.invalidate([full], Promise.resolve()).catch(() => undefined));
    this.leases = FillLeases.possible(this.path)
      ? new FillLeases(this.path, options.keyPrefix, options.lockTimeoutMs, (operation, key, error) => reports.report(error, operation, key), announce)
      : undefined;
  }

  /** The cache's clock (milliseconds since the epoch). */
  now(): number {
    return this.clock.now();
  }

  /** The lifetimes of a call's options (the cache's defaults for what they leave out). */
  lifetimes(options: GetOrSetOptions<unknown> | undefined): Lifetimes {
    return options === undefined ? this.defaults : lifetimesOf(options, this.defaults);
  }

  /** performance.now() when somebody listens for the durations of hits and misses, else 0. */
  started(): number {
    return this.events.listens('hit') || this.events.listens('miss') ? performance.now() : 0;
  }

  /** Keeps `work` in the set that close() waits for, and hands it to a `waitUntil` (the call's first). */
  track(work: Promise<unknown>, waitUntil?: WaitUntil): void {
    handOff(work, waitUntil, this.options.waitUntil);
    this.background.add(work);
    const done = () => void this.background.delete(work);
    work.then(done, done);
  }
}
