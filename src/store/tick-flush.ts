/**
 * When a layer that gathers the calls of a tick (the engine's batcher and generation layer, a
 * store that sends a tick's commands as one request) sends them. The calls of one tick arrive
 * at different depths of their callers' promise chains: a handler that awaited twice before
 * calling arrives two microtask hops after one that awaited once. A flush on the first hop
 * would split one tick into one store call per depth (a test counts five for callers that
 * awaited 0 to 4 times). So the flush waits, one microtask hop at a time, until some hops pass
 * with no new call ({@link ENGINE_HOPS}), and never longer than a bound (a steady stream of
 * calls cannot hold the first one back). It costs a lone call a few hops, tens of
 * nanoseconds; it still goes out before the event loop does any I/O.
 *
 * A store that gathers its own tick sits below the engine's layers, which hand it their folds
 * only once they went quiet, while a lone call the batcher sends ahead (batcher.ts) reaches it
 * at once: it waits longer ({@link STORE_HOPS}), so that the lone call and the fold after it
 * still leave together.
 */

/** How long a gathering waits: hops without a new call after which it goes, and the most hops it waits. */
export interface FlushHops {
  readonly quiet: number;
  readonly most: number;
}

/** The engine's layers (src/cache/path). */
export const ENGINE_HOPS: FlushHops = Object.freeze({ quiet: 3, most: 24 });
/** A store beneath them that gathers its tick again (one HTTP request per tick on Upstash). */
export const STORE_HOPS: FlushHops = Object.freeze({ quiet: ENGINE_HOPS.quiet + 4, most: ENGINE_HOPS.most + 8 });

/** Runs `flush` once the microtask queue has gone quiet since {@link schedule}; `size` counts the calls gathered. */
export class TickFlush {
  #hops = 0;
  #quietHops = 0;
  #seen = 0;

  constructor(
    private readonly size: () => number,
    private readonly flush: () => void,
    private readonly hops: FlushHops = ENGINE_HOPS,
  ) {}

  /** Starts waiting; called when the first call of a new gathering is queued. */
  schedule(): void {
    this.#hops = 0;
    this.#quietHops = 0;
    this.#seen = 0;
    queueMicrotask(this.#hop);
  }

  readonly #hop = (): void => {
    const size = this.size();
    this.#quietHops = size > this.#seen ? 0 : this.#quietHops + 1;
    this.#seen = size;
    if (++this.#hops < this.hops.most && this.#quietHops < this.hops.quiet) queueMicrotask(this.#hop);
    else this.flush();
  };
}
