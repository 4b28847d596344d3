/**
 * When a layer that gathers the calls of a tick (the batcher, the generation layer) sends them.
 * The calls of one tick arrive at different depths of their callers' promise chains: a handler
 * that awaited twice before calling arrives two microtask hops after one that awaited once. A
 * flush on the first hop would split one tick into one store call per depth (a test counts
 * five for callers that awaited 0 to 4 times). So the flush waits, one microtask hop at a time,
 * until {@link QUIET_HOPS} hops pass with no new call, and never longer than {@link MAX_HOPS}
 * (a steady stream of calls cannot hold the first one back). It costs a lone call a few hops,
 * tens of nanoseconds; it still goes out before the event loop does any I/O.
 */

/** Hops without a new call after which the gathered calls go. */
const QUIET_HOPS = 3;
/** The most hops a call waits. */
const MAX_HOPS = 24;

/** Runs `flush` once the microtask queue has gone quiet since {@link schedule}; `size` counts the calls gathered. */
export class TickFlush {
  #hops = 0;
  #quietHops = 0;
  #seen = 0;

  constructor(
    private readonly size: () => number,
    private readonly flush: () => void,
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
    if (++this.#hops < MAX_HOPS && this.#quietHops < QUIET_HOPS) queueMicrotask(this.#hop);
    else this.flush();
  };
}
