import type { Store } from '../../store/types.ts';
import { StoreLayer } from './layer.ts';

/** How many open caches stand on each store, so that the last one to close closes it. */
const users = new WeakMap<Store, number>();

/**
 * The bottom of a cache's store path: the store itself, counted. Closing it closes the store
 * only when it was the last open cache over that store and the cache may close it; a store
 * shared by several caches therefore stays open until all of them are closed.
 */
export class StoreHandle extends StoreLayer {
  #open = true;

  constructor(
    store: Store,
    private readonly closeStore: boolean,
  ) {
    super(store);
    this.forwardSyncReads();
    if (closeStore) users.set(store, (users.get(store) ?? 0) + 1);
  }

  override async close(): Promise<void> {
    if (!this.#open || !this.closeStore) return;
    this.#open = false;
    const left = (users.get(this.next) ?? 1) - 1;
    if (left > 0) {
      users.set(this.next, left);
      return;
    }
    users.delete(this.next);
    await this.next.close();
  }
}
