import type { Store } from '../../store/types.ts';
import type { Clock } from '../clock.ts';
import { BatchLayer } from './batcher.ts';
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
}

/** The built path: its top (what the engine calls) and the guard (asked about health). */
export interface StorePath {
  top: Store;
  guard: GuardLayer;
}

/**
 * Stacks the store path, bottom to top: the counted store handle, the guard (timeouts and
 * breakers, so that a folded call is timed once, as the round trip it is), then the batcher
 * that folds the calls of a tick. Later layers (L1, leases, fences, tag checks) stack above.
 */
export function buildPath(o: PathOptions): StorePath {
  const handle = new StoreHandle(o.store, o.closeStore);
  const guard = new GuardLayer(handle, { timeoutMs: o.timeoutMs, threshold: o.threshold, cooldownMs: o.cooldownMs, clock: o.clock, reporter: o.reporter });
  return { top: o.batch ? new BatchLayer(guard) : guard, guard };
}
