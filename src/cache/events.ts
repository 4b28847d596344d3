/** Counters returned by `cache.stats()`. */
export interface CacheStats {
  /** Reads answered with a fresh value. */
  hits: number;
  /** Reads that found nothing usable (absent, expired, corrupt or store failure). */
  misses: number;
  /** Stale values served inside their grace window. */
  staleServed: number;
  /** `getOrSet` calls that waited for another call's factory instead of running their own. */
  coalesced: number;
  /** Background refreshes started. */
  refreshes: number;
  /** Factory failures (foreground or background). */
  factoryErrors: number;
  /** Store calls that failed, timed out or were skipped by the open circuit breaker. */
  storeErrors: number;
  /** Entries the engine could not read (bad magic, unknown version, truncated, bad payload). */
  corrupt: number;
  /** Bytes received from the store for entries. */
  bytesRead: number;
  /** Bytes sent to the store for entries. */
  bytesWritten: number;
}

/** Names of the events a cache dispatches; each is a `CustomEvent` whose `detail` is typed below. */
export interface CacheEventMap {
  hit: { key: string };
  miss: { key: string };
  stale: { key: string };
  coalesced: { key: string };
  refresh: { key: string };
  corrupt: { key: string; reason: string };
  /** A store failure (source "store") or a factory failure in a background refresh (source "factory"). */
  error: { source: 'store' | 'factory'; operation: string; keys: readonly string[]; error: unknown };
}

/** A cache event type. */
export type CacheEventType = keyof CacheEventMap;

/**
 * A web-standard EventTarget that knows whether anyone listens, so the hot path pays for an
 * event object only when somebody will receive it.
 */
export class CacheEvents extends EventTarget {
  #listeners = new Map<string, number>();

  override addEventListener(
    type: string,
    callback: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    if (callback) this.#listeners.set(type, (this.#listeners.get(type) ?? 0) + 1);
    super.addEventListener(type, callback, options);
  }

  override removeEventListener(
    type: string,
    callback: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean,
  ): void {
    // The count may overstate after a removal of an unknown listener; that only costs an
    // unneeded event object, never a lost one.
    const n = this.#listeners.get(type) ?? 0;
    if (callback && n > 0) this.#listeners.set(type, n - 1);
    super.removeEventListener(type, callback, options);
  }

  /** Dispatches a typed event when at least one listener may receive it. */
  emit<K extends CacheEventType>(type: K, detail: CacheEventMap[K]): void {
    if (this.#listeners.get(type)) this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** Fresh counters, all zero. */
export function emptyStats(): CacheStats {
  return {
    hits: 0,
    misses: 0,
    staleServed: 0,
    coalesced: 0,
    refreshes: 0,
    factoryErrors: 0,
    storeErrors: 0,
    corrupt: 0,
    bytesRead: 0,
    bytesWritten: 0,
  };
}
