/**
 * Whether the store is known to refuse writes right now, so that Cache-Status never claims
 * `stored` for a response that will not be (RFC 9211 §2.6). Read from what the engine already
 * exposes: its `error` events (a failed or timed-out store call, or one skipped by the open
 * circuit breaker) and the result of each write the HTTP cache makes.
 */
import type { Cache } from '../cache/create-cache.ts';

/** Tracks the store's write health as seen through one engine. */
export class StoreHealth {
  #down = false;
  readonly #cache: Cache;
  readonly #onError = (event: Event) => {
    const detail = (event as CustomEvent<{ source?: string }>).detail;
    if (detail?.source === 'store') this.#down = true;
  };

  constructor(cache: Cache) {
    this.#cache = cache;
    cache.events.addEventListener('error', this.#onError);
  }

  /**
   * True from a store failure until a write succeeds again. Every write is still attempted
   * meanwhile (the engine's breaker decides what reaches the store), so the first one that
   * works clears it.
   */
  get knownDown(): boolean {
    return this.#down;
  }

  /** Records the outcome of a write: `false` is the engine's "the store failed". */
  wrote(ok: boolean): void {
    this.#down = !ok;
  }

  /** Stops listening to the engine. */
  close(): void {
    this.#cache.events.removeEventListener('error', this.#onError);
  }
}
