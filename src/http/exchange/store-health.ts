/**
 * Whether the store is known to refuse writes right now, so that Cache-Status never claims
 * `stored` for a response that will not be (RFC 9211 §2.6). Read from what the engine exposes:
 * its breaker's view of write health (`cache.health()`), the store failures it reports, and
 * the result of each write the HTTP cache makes. Also whether a coherent L1 is bypassed (its
 * `coherence` event), so that a hit read from the store meanwhile says so in Cache-Status.
 */
import type { Cache } from '../../cache/create-cache.ts';
import type { CacheEventListener } from '../../cache/events.ts';
import { StoreRefusedError } from '../../store/errors.ts';

/** Tracks the store's write health as seen through one engine. */
export class StoreHealth {
  #failed = false;
  #l1Bypassed = false;
  readonly #cache: Cache;
  readonly #onError: CacheEventListener<'error'> = (event) => {
    // A call the store refused on its own merits (a value too large for it) says nothing about its health.
    if (event.detail.source === 'store' && !(event.detail.error instanceof StoreRefusedError)) this.#failed = true;
  };

  readonly #onCoherence: CacheEventListener<'coherence'> = (event) => {
    this.#l1Bypassed = !event.detail.live;
  };

  constructor(cache: Cache) {
    this.#cache = cache;
    cache.events.addEventListener('error', this.#onError);
    cache.events.addEventListener('coherence', this.#onCoherence);
  }

  /** True while a coherent L1 serves nothing from memory (coherence not confirmed): hits come from the store. */
  get l1Bypassed(): boolean {
    return this.#l1Bypassed;
  }

  /**
   * True while the engine holds writes as down (its circuit is open), and from a store failure
   * until a write succeeds again. Every write is still attempted meanwhile (the engine's
   * breaker decides what reaches the store), so the first one that works clears it.
   */
  get knownDown(): boolean {
    return this.#failed || this.#cache.health().writes === 'down';
  }

  /** Records the outcome of a write: `false` is the engine's "not stored". */
  wrote(ok: boolean): void {
    this.#failed = !ok;
  }

  /** Stops listening to the engine. */
  close(): void {
    this.#cache.events.removeEventListener('error', this.#onError);
    this.#cache.events.removeEventListener('coherence', this.#onCoherence);
  }
}
