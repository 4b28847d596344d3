import type { Store } from '../../store/types.ts';
import { entryKey, fillLeaseKey } from '../key-space.ts';
import { newToken } from '../tags/tag-keys.ts';

/** A fill lease this process holds. */
export interface FillLease {
  /** Releases it by token (never somebody else's), once the fill's write landed (whose invalidation told the waiters); never rejects. */
  release(): Promise<void>;
  /**
   * Releases it when the fill wrote nothing (its factory failed, or the value was not to be
   * stored), then tells the processes waiting on the coherence bus that the lease is free (an
   * invalidation of the entry, which nobody holds a copy of): they take it instead of waiting
   * for its expiry. Never rejects.
   */
  abandon(): Promise<void>;
}

/** Tells the other processes that the entry `full` may have changed (the coherence bus); resolves once it was told, or could not be. */
export type Announce = (full: string) => Promise<void>;

/** What {@link FillLeases.acquire} got: the lease, `'held'` by another process, or `'unavailable'` (the store failed). */
export type LeaseOutcome = FillLease | 'held' | 'unavailable';

const encoder = new TextEncoder();

/**
 * Fill leases across processes (docs/architecture.md#tags-leases-and-tiers): a cold
 * `getOrSet` sets `<prefix>#lease:<key>` if absent, with a random token and an expiry of
 * `lockTimeout`. The process that set it runs the factory, writes the entry, then deletes the
 * lease by token; the others wait for the entry: woken by the coherence bus when the cache has a
 * coherent L1 (the write's invalidation, or {@link FillLease.abandon}), otherwise looking again
 * after a {@link backoff}. A crashed winner leaves its lease behind for
 * at most `lockTimeout`, after which another process takes it. Needs a store with `add` and
 * `compareAndDelete`; without them (Workers KV) coalescing stays within each process.
 */
export class FillLeases {
  constructor(
    private readonly path: Store,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly onFailure: (operation: string, key: string, error: unknown) => void,
    private readonly announce: Announce | undefined,
  ) {}

  /** True when the store can hold leases. */
  static possible(store: Store): boolean {
    return typeof store.add === 'function' && typeof store.compareAndDelete === 'function';
  }

  /** Tries to take the fill lease of `key` (unprefixed). */
  async acquire(key: string): Promise<LeaseOutcome> {
    const leaseKey = fillLeaseKey(this.prefix, key);
    const token = encoder.encode(newToken());
    let won: boolean;
    try {
      won = await this.path.add!(leaseKey, token, this.ttlMs);
    } catch (error) {
      this.onFailure('add', leaseKey, error);
      return 'unavailable';
    }
    if (!won) return 'held';
    const release = () =>
      this.path.compareAndDelete!(leaseKey, token).then(
        () => undefined,
        // Left behind, the lease only delays other processes until it expires.
        (error: unknown) => this.onFailure('compareAndDelete', leaseKey, error),
      );
    const announce = this.announce;
    // Told after the release answered: a waiter woken earlier could find the lease still held.
    return { release, abandon: announce ? () => release().then(() => announce(entryKey(this.prefix, key))) : release };
  }
}

/** The pause before the `attempt`-th look at somebody else's work where no bus tells when it is done: 1 ms, doubling, at most 50 ms. */
export function backoff(attempt: number): Promise<void> {
  const ms = backoffMs(attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How long {@link backoff} pauses before the `attempt`-th look, in ms. */
export function backoffMs(attempt: number): number {
  return Math.min(2 ** Math.min(attempt, 6), 50);
}
