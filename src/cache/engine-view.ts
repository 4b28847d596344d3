/**
 * What an ecosystem adapter (cachette/unstorage's `watch`) may learn of a cache from
 * `createCache()` beyond the Cache interface: the store under it, its key prefix, and whether
 * its writes are announced on the store's coherence bus. Kept beside the engine, not on the
 * Cache type, so that none of it becomes public API.
 */
import type { Store } from '../store/types.ts';

/** A cache as an adapter sees it. */
export interface EngineView {
  /** The store the cache was created over. */
  readonly store: Store;
  /** The prefix of its store keys (`cachette:`, `app:users:`, …), as key-space.ts joins it. */
  readonly keyPrefix: string;
  /** True when its writes publish their invalidations on the store's coherence bus (the coherent L1). */
  readonly announcesWrites: boolean;
}

const views = new WeakMap<object, EngineView>();

/** Records what `cache` is over; the engine calls it once, when it is built. */
export function describeEngine(cache: object, view: EngineView): void {
  views.set(cache, view);
}

/** What `cache` is over, or undefined for anything the engine did not build. */
export function engineView(cache: object): EngineView | undefined {
  return views.get(cache);
}
