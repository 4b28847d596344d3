import type { CdnPurgeError } from '../cdn/types.ts';
import type { HealthKind } from './path/breaker.ts';

/** Counters returned by `cache.stats()`. */
export interface CacheStats {
  /** Reads answered with a fresh value. */
  hits: number;
  /** Reads that found nothing usable (absent, expired, corrupt or store failure). */
  misses: number;
  /** Stale values served inside their grace window. */
  staleServed: number;
  /**
   * Stale (or stale-if-error) values served because the source failed: the factory threw,
   * timed out or called `ctx.fail()`, or failed less than `graceBackoff` ago. Not in `staleServed`.
   */
  staleOnError: number;
  /** `getOrSet` calls that waited for another call's factory (in this process or, through a fill lease, another) instead of running their own. */
  coalesced: number;
  /** Cold `getOrSet` calls that found another process's fill lease and waited for its value. */
  leaseWaits: number;
  /** Fills that found a write lease held on one of their tags (their value is not stored until the write commits). */
  fenced: number;
  /** Entries found but refused because a tag they record has a newer generation. */
  outdated: number;
  /** Background refreshes started. */
  refreshes: number;
  /** Factory runs (foreground fills and background refreshes). */
  fills: number;
  /** Factory failures and timeouts (foreground or background). */
  factoryErrors: number;
  /** Store calls that failed or timed out. */
  storeErrors: number;
  /** Store calls skipped while the circuit breaker held the store as down. */
  storeSkipped: number;
  /** Stored values a `getOrSet` refused: written under another `version`, or refused by its `schema` (each a miss, refilled). */
  invalid: number;
  /** Entries the engine could not read (bad magic, unknown version, truncated, bad payload, too large). */
  corrupt: number;
  /** Values that were served but not stored because they exceed `maxValueBytes`. */
  tooLarge: number;
  /**
   * Reads of a coherent L1 (`l1: { consistency: 'coherent' }`) that went to the store because
   * coherence was not confirmed at that moment (the bus down, the lease lapsed): memory is
   * flushed and bypassed until it is confirmed again (the `coherence` event says when).
   */
  l1Bypassed: number;
  /** Reads served from the location's Cache API copy without asking the store (`locationCache: { mode: 'bounded' }`): not confirmed, up to `maxAge` old. */
  locationUnconfirmed: number;
  /** Reads whose location copy a store read confirmed unchanged (`locationCache`): served from the copy, current as of that read. */
  locationConfirmed: number;
  /** Bytes received from the store for entries. */
  bytesRead: number;
  /** Bytes sent to the store for entries. */
  bytesWritten: number;
  /** CDN purge requests a CDN accepted (`cdn` option, docs/cdn.md). */
  cdnSent: number;
  /** CDN purge requests tried again (after a 429, a 5xx, a network error or a timeout). */
  cdnRetried: number;
  /** CDN purge requests given up on (each also a `cdnFailed` event). */
  cdnFailed: number;
  /** Tags left out of a CDN's tag field by the HTTP layer's `cdnTagHeader` (invalid, too long, or past the CDN's bounds). */
  cdnTagsDropped: number;
}

/** A store half (reads or writes) went down or came back; reported once per change. */
export interface HealthEventDetail {
  /** The store's name ("valkey", …). */
  store: string;
  /** Where it lives, when the store says ("127.0.0.1:6379"). */
  address: string | undefined;
  /** Which half changed: a full server refuses writes and still serves reads. */
  kind: HealthKind;
  /** `down`: calls of this kind are skipped; `up`: they reach the store again. */
  state: 'down' | 'up';
  /** Down: the failure that tipped it (e.g. "connect ECONNREFUSED 127.0.0.1:6379"). */
  cause?: string;
  /** Down: consecutive failures seen. */
  failures?: number;
  /** Up: how long it was down, in ms. */
  downForMs?: number;
  /** Up: calls skipped while it was down. */
  skipped?: number;
}

/** Names of the events a cache dispatches; each is a `CustomEvent` whose `detail` is typed here. */
export interface CacheEventMap {
  /** A read found a fresh value; `durationMs` covers the store round trip and the decode. */
  hit: { key: string; durationMs: number };
  /** A read found nothing usable. */
  miss: { key: string; durationMs: number };
  /** `getOrSet` served a stale value inside its grace window (a refresh runs). */
  stale: { key: string };
  /**
   * `getOrSet` served a stale value because its source failed: `error` is the failure, or
   * undefined when the factory was not tried (`backoff`: it failed less than `graceBackoff` ago).
   */
  staleOnError: { key: string; error: unknown; backoff: boolean };
  /** `getOrSet` joined a fill already running for the key (`remote`: in another process, through its fill lease). */
  coalesced: { key: string; remote: boolean };
  /** An entry was found, but one of its tags was invalidated since it was written: a miss. */
  outdated: { key: string; tags: readonly string[] };
  /** A fill found a write in progress on these tags: its value is served, not stored, until the write commits. */
  fenced: { key: string; tags: readonly string[] };
  /** A background refresh started. */
  refresh: { key: string };
  /** A factory ran; `error` is set when it failed or timed out. */
  fill: { key: string; durationMs: number; background: boolean; error?: unknown };
  /** A stored value was refused by the call's `version` or `schema` (`issues`: the schema's); a miss, refilled. */
  invalid: { key: string; reason: 'version' | 'schema'; issues: ReadonlyArray<{ readonly message: string }> };
  /** Stored bytes the engine could not read, or that inflate past `maxValueBytes`. */
  corrupt: { key: string; reason: string };
  /**
   * A store call that failed (source "store"), a background refresh that failed (source
   * "factory"), or a value that was served but not stored (source "encode", e.g. too large).
   */
  error: { source: 'store' | 'factory' | 'encode'; operation: string; keys: readonly string[]; error: unknown };
  /** Reads or writes of the store went down or recovered: once per change, never once per call. */
  health: HealthEventDetail;
  /**
   * A coherent L1 serves copies again (`live: true`), or stopped (`live: false`: its memory was
   * flushed, and reads go to the store until the bus confirms coherence again). Once per change.
   */
  coherence: { live: boolean };
  /**
   * A CDN purge request was given up on (`cdn` option): not accepted after `attempts` tries, or
   * refused outright (a 4xx other than 429). `error` says why; it never holds a token.
   */
  cdnFailed: { purger: string; tags: readonly string[]; urls: readonly string[]; attempts: number; error: CdnPurgeError };
  /**
   * `cache.warm` settled one of its keys (`done` of `total` so far): `filled` by its factory,
   * `present` already (or filled by another process), `missing` (no factory, nothing stored), or
   * `failed` with `error`.
   */
  warm: { key: string; outcome: 'filled' | 'present' | 'missing' | 'failed'; done: number; total: number; error?: unknown };
}

/** A cache event type. */
export type CacheEventType = keyof CacheEventMap;

/** A listener for one event type, receiving a `CustomEvent` with the typed detail. */
export type CacheEventListener<K extends CacheEventType> = (event: CustomEvent<CacheEventMap[K]>) => void;

/**
 * A web-standard EventTarget with typed events, that knows whether anyone listens, so the hot
 * path pays for an event object only when somebody will receive it.
 *
 * ```ts
 * cache.events.addEventListener('error', (event) => console.warn(event.detail.operation, event.detail.error));
 * ```
 */
export class CacheEvents extends EventTarget {
  #listeners = new Map<string, number>();

  override addEventListener<K extends CacheEventType>(type: K, callback: CacheEventListener<K> | null, options?: AddEventListenerOptions | boolean): void;
  override addEventListener(type: string, callback: EventListenerOrEventListenerObject | null, options?: AddEventListenerOptions | boolean): void;
  override addEventListener(type: string, callback: EventListenerOrEventListenerObject | CacheEventListener<CacheEventType> | null, options?: AddEventListenerOptions | boolean): void {
    if (callback) this.#listeners.set(type, (this.#listeners.get(type) ?? 0) + 1);
    super.addEventListener(type, callback as EventListenerOrEventListenerObject | null, options);
  }

  override removeEventListener<K extends CacheEventType>(type: K, callback: CacheEventListener<K> | null, options?: EventListenerOptions | boolean): void;
  override removeEventListener(type: string, callback: EventListenerOrEventListenerObject | null, options?: EventListenerOptions | boolean): void;
  override removeEventListener(type: string, callback: EventListenerOrEventListenerObject | CacheEventListener<CacheEventType> | null, options?: EventListenerOptions | boolean): void {
    // The count may overstate after a removal of an unknown listener; that only costs an
    // unneeded event object, never a lost one.
    const count = this.#listeners.get(type) ?? 0;
    if (callback && count > 0) this.#listeners.set(type, count - 1);
    super.removeEventListener(type, callback as EventListenerOrEventListenerObject | null, options);
  }

  /** True when at least one listener may receive events of `type`. */
  listens(type: CacheEventType): boolean {
    return (this.#listeners.get(type) ?? 0) > 0;
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
    staleOnError: 0,
    coalesced: 0,
    leaseWaits: 0,
    fenced: 0,
    outdated: 0,
    refreshes: 0,
    fills: 0,
    factoryErrors: 0,
    storeErrors: 0,
    storeSkipped: 0,
    corrupt: 0,
    invalid: 0,
    tooLarge: 0,
    l1Bypassed: 0,
    locationUnconfirmed: 0,
    locationConfirmed: 0,
    bytesRead: 0,
    bytesWritten: 0,
    cdnSent: 0,
    cdnRetried: 0,
    cdnFailed: 0,
    cdnTagsDropped: 0,
  };
}
