/**
 * The unstorage driver's `watch` over a store's coherence bus (Store.coherence, src/store/bus):
 * the driver registers as a watcher, a holder that keeps no copies and acknowledges every
 * invalidation at once, so a writer never waits a lease for it.
 *
 * The bus names what changed by store key (the cache's prefix, then the caller's key escaped:
 * key-space.ts), which maps back one-to-one to the item's key; tag generations, fill leases and
 * other caches' keys map to nothing and are not reported. A removal (`removeItem`, `clear` key
 * by key, `cache.delete`) travels marked as one and is reported as `remove`; any other write
 * (`setItem`, `setItems`, `cache.set`, `cache.expire`) as `update`. Not reported, because the
 * bus does not say which keys they touched: `cache.clear()`, `invalidateTags` (entries are not
 * rewritten, only their tags' generations move), and whatever was published while this
 * process's bus was down. Writes are announced by caches with the coherent L1 (the driver's own
 * cache over a store has it), so a cache without it, or a client writing the store directly,
 * is not seen.
 */
import type { Unwatch, WatchCallback } from 'unstorage';
import type { EngineView } from '../cache/engine-view.ts';
import { callerKeyOf } from '../cache/key-space.ts';
import type { Coherence } from '../store/types.ts';

/** How long `watch` waits for the bus to listen to every key before it gives up with an error. */
const WATCH_READY_MS = 10_000;

/** The driver's `watch`, and the way to end every watch it opened (on `dispose`). */
export interface BusWatch {
  watch(callback: WatchCallback): Promise<Unwatch>;
  closeAll(): Promise<void>;
}

/**
 * `watch` over the bus of the cache `view` describes (its store has `coherence`); `itemKey`
 * turns a caller's key of the cache into the driver's item key, or undefined outside its base.
 */
export function busWatch(view: EngineView, itemKey: (callerKey: string) => string | undefined): BusWatch {
  const open = new Set<Coherence>();
  const watch = async (callback: WatchCallback): Promise<Unwatch> => {
    if (!view.announcesWrites) {
      throw new TypeError(
        "cachetteDriver(): watch needs the cache's writes announced on the store's coherence bus: give the driver the store itself, or a cache created with l1: { consistency: 'coherent' }",
      );
    }
    const registration = view.store.coherence!(
      {
        invalidated: (keys, removed) => {
          for (const stored of keys) {
            const caller = callerKeyOf(view.keyPrefix, stored);
            const key = caller === undefined ? undefined : itemKey(caller);
            // In a microtask: a listener's exception is its own, never the bus's message loop's.
            if (key !== undefined) queueMicrotask(() => callback(removed === true ? 'remove' : 'update', key));
          }
        },
        flushed: () => undefined,
        liveChanged: () => undefined,
      },
      { confirm: 'lease', watcher: true },
    );
    open.add(registration);
    const unwatch = async () => {
      if (open.delete(registration)) await registration.close();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), WATCH_READY_MS);
    });
    const watched = await Promise.race([registration.barrier(), expired]);
    clearTimeout(timer);
    if (!watched) {
      await unwatch();
      throw new Error(`cachetteDriver(): watch could not listen on the ${view.store.name} store's coherence bus within ${WATCH_READY_MS / 1000} s (is the server reachable?)`);
    }
    return unwatch;
  };
  return {
    watch,
    closeAll: async () => {
      const all = [...open];
      open.clear();
      await Promise.all(all.map((registration) => registration.close()));
    },
  };
}
