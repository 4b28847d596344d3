import type { Store } from '../../store/types.ts';
import { fillLeaseKey } from '../key-space.ts';
import { newToken } from '../tags/tag-keys.ts';

/** A fill lease this process holds. */
export interface FillLease {
  /** Releases it by token (never somebody else's); never rejects. */
  release(): Promise<void>;
}

/** What {@link FillLeases.acquire} got: the lease, `'held'` by another process, or `'unavailable'` (the store failed). */
export type LeaseOutcome = FillLease | 'held' | 'unavailable';

const encoder = new TextEncoder();

/**
 * Fill leases across processes (docs/architecture.md#tags-leases-and-tiers): a cold
 * `getOrSet` sets `<prefix>#lease:<key>` if absent, with a random token and an expiry of
 * `lockTimeout`. The process that set it runs the factory, writes the entry, then deletes the
 * lease by token; the others wait for the entry. A crashed winner leaves its lease behind for
 * at most `lockTimeout`, after which another process takes it. Needs a store with `add` and
 * `compareAndDelete`; without them (Workers KV) coalescing stays within each process.
 */
export class FillLeases {
  constructor(
    private readonly path: Store,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly onFailure: (operation: string, key: string, error: unknown) => void,
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
    return {
      release: () =>
        this.path.compareAndDelete!(leaseKey, token).then(
          () => undefined,
          // Left behind, the lease only delays other processes until it expires.
          (error: unknown) => this.onFailure('compareAndDelete', leaseKey, error),
        ),
    };
  }
}

/** The pause before the `attempt`-th look at somebody else's work: 1 ms, doubling, at most 50 ms. */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(2 ** Math.min(attempt, 6), 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
