import type { Coherence, Store } from '../../store/types.ts';
import type { Clock } from '../clock.ts';
import { EncryptionLayer } from '../encryption/encryption-layer.ts';
import type { Keyring } from '../encryption/keyring.ts';
import { BatchLayer } from './batcher.ts';
import { CoherenceLayer } from './coherence-layer.ts';
import { GenerationLayer } from './generations.ts';
import { GuardLayer, type GuardReporter } from './guard.ts';
import { StoreHandle } from './store-handle.ts';

/** What the engine's store path is built from. */
export interface PathOptions {
  store: Store;
  closeStore: boolean;
  batch: boolean;
  timeoutMs: number;
  threshold: number;
  cooldownMs: number;
  clock: Clock;
  reporter: GuardReporter;
  /**
   * A coherent L1's registration with the store's coherence bus, and the cache's key prefix
   * (which tells its tag generations from other counters): writes publish their invalidations.
   */
  coherence?: { bus: Coherence; keyPrefix: string } | undefined;
  /** With `encryption`: its keys, for the encryption layer right above the store. */
  encryption?: Keyring | undefined;
}

/** The built path: its top (what the engine calls) and the guard (asked about health). */
export interface StorePath {
  /** Offers readWithGenerations and writeGenerations whatever the store has. */
  top: GenerationLayer;
  guard: GuardLayer;
}

/**
 * Stacks the store path, bottom to top: the counted store handle, with `encryption` the
 * layer that seals and opens envelopes (src/cache/encryption), the guard (timeouts and
 * breakers, so that a folded call is timed once, as the round trip it is), the batcher that
 * folds the calls of a tick, then the tag-generation layer (one merged script per tick for
 * tagged reads, or getMany and increments on a store without the capability); with a coherent
 * L1, the coherence layer between the last two publishes each write's invalidation behind it.
 * The L1 tier, fill leases and write fences work above the path (src/cache/tiers, leases, tags).
 */
export function buildPath(options: PathOptions): StorePath {
  const handle = new StoreHandle(options.store, options.closeStore);
  // Below the guard, so that a call's timeout and breaker count its encryption with its round trip.
  const sealed = options.encryption ? new EncryptionLayer(handle, options.encryption) : handle;
  const guard = new GuardLayer(sealed, { timeoutMs: options.timeoutMs, threshold: options.threshold, cooldownMs: options.cooldownMs, clock: options.clock, reporter: options.reporter });
  const batch = options.batch ? new BatchLayer(guard) : undefined;
  const below = batch ?? guard;
  const { coherence } = options;
  const coherent = coherence && new CoherenceLayer(below, coherence.bus, batch ? (run) => batch.inOrder(run) : (run) => run(), coherence.keyPrefix);
  return { top: new GenerationLayer(coherent ?? below), guard };
}
