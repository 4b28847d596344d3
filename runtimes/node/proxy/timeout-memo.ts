/**
 * Which URLs' origin requests recently ran out of the headers timeout.
 *
 * The HTTP cache lets the clients that joined a forward retry once its answer cannot be shared
 * with them — and a 504 is not stored, so it is not shared. Behind an origin that never answers,
 * N clients waiting on one URL would then wait one timeout after another: 30, 60, 90 s… With
 * this memo a client that has already waited through a timeout of its URL gets that 504 at once,
 * so no client waits much longer than one timeout. A client that arrives later tries again.
 */
export class TimeoutMemo {
  /** URL → when its last timeout fired, oldest first (re-recorded entries move to the end). */
  readonly #at = new Map<string, number>();

  constructor(
    /** How long an entry matters: the headers timeout (no waiting client can be older). */
    private readonly windowMs: number,
    /** Most URLs remembered at once; the oldest go first. */
    private readonly maxEntries = 10_000,
  ) {}

  /** Notes that `url` timed out at `at` (ms since the epoch). */
  record(url: string, at: number): void {
    this.#at.delete(url);
    this.#at.set(url, at);
    for (const [oldest, when] of this.#at) {
      if (this.#at.size <= this.maxEntries && when >= at - this.windowMs) break;
      this.#at.delete(oldest);
    }
  }

  /** True when `url` timed out at or after `since`: a client waiting since then has waited one timeout already. */
  timedOutSince(url: string, since: number): boolean {
    const at = this.#at.get(url);
    return at !== undefined && at >= since;
  }
}
