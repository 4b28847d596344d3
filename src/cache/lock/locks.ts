import type { Store } from '../../store/types.ts';
import { toMs, type Duration } from '../../util/duration.ts';
import { callOptionsCheck } from '../../util/known-options.ts';
import type { Clock } from '../clock.ts';
import { MissingCapabilityError } from '../errors.ts';
import { lockFenceKey, lockKey } from '../key-space.ts';
import { backoffMs, FillLeases } from '../leases/fill-leases.ts';
import { newToken } from '../tags/tag-keys.ts';
import { LockTimeoutError } from './lock-timeout-error.ts';

/** Options of `cache.lock`. */
export interface LockOptions {
  /**
   * How long the lock lasts unless released (required): a holder that crashes or hangs keeps
   * it no longer than this, and one that is still working after it no longer holds it (check
   * {@link Lock.expiresAt}, and pass {@link Lock.token} to what the lock protects).
   */
  ttl: Duration;
  /**
   * How long to keep trying while another holder has the lock, before rejecting with a
   * `LockTimeoutError`. Default: 0 (one try).
   */
  wait?: Duration;
  /** Stops waiting: the call rejects with the signal's reason (a lock taken meanwhile is released). */
  signal?: AbortSignal;
}

/** A lock `cache.lock` took. */
export interface Lock {
  /** The lock's name. */
  readonly name: string;
  /**
   * The fencing token: larger than that of every earlier holder of this name on the store. A
   * protected resource that remembers the largest token it accepted and refuses smaller ones
   * refuses a holder whose lock expired while it was paused (see docs/lock.md).
   */
  readonly token: number;
  /** When the lock lapses unless released (ms since the epoch, on the cache's clock), counted from the moment the attempt that won was sent. */
  readonly expiresAt: number;
  /**
   * Releases the lock: resolves true when this holder's lease was removed, false when it had
   * lapsed already (another holder's lease is never removed). Calling it again resolves as the
   * first call did; after a store failure (a rejection), the next call tries again.
   */
  release(): Promise<boolean>;
}

const encoder = new TextEncoder();

const checkLockOptions = callOptionsCheck(['ttl', 'wait', 'signal'] satisfies ReadonlyArray<keyof LockOptions>);

/**
 * `cache.lock` (docs/lock.md): a lease `<prefix>#lock:<name>` set if absent with a random
 * token and the lock's ttl, the same primitive as the fill leases (src/cache/leases), released
 * by token with `compareAndDelete`; and a fencing counter `<prefix>#lock-fence:<name>`
 * incremented by each holder once its lease is won. Only the lease holder increments it, so
 * tokens grow with the order in which holders won, provided each increment landed while its
 * lease lasted: a holder whose increment answered after its ttl (it may have lapsed, and a later
 * holder have counted first) gives the lock up and tries again.
 */
export class Locks {
  constructor(
    private readonly path: Store,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  /** Takes the lock `name` (checked here), trying again within `wait`. */
  async acquire(name: string, options: LockOptions): Promise<Lock> {
    if (typeof name !== 'string' || name.length === 0) throw new TypeError(`cachette: lock() needs a non-empty string name, got ${JSON.stringify(name)}`);
    checkLockOptions(options, 'lock', name);
    if (options.ttl === undefined) throw new TypeError(`cachette: lock("${name}") needs a ttl (how long a holder that never releases keeps it)`);
    const ttlMs = toMs(options.ttl, `lock("${name}") ttl`);
    if (ttlMs === 0 || ttlMs === Infinity) throw new RangeError(`cachette: lock("${name}") needs a finite ttl greater than 0, got ${options.ttl}`);
    const waitMs = options.wait === undefined ? 0 : toMs(options.wait, `lock("${name}") wait`);
    const { signal } = options;
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError(`cachette: lock("${name}") signal must be an AbortSignal`);
    if (!FillLeases.possible(this.path)) {
      throw new MissingCapabilityError(this.path.name, 'add', 'cache.lock needs a store that holds leases (add and compareAndDelete), which Workers KV cannot');
    }
    const leaseKey = lockKey(this.prefix, name);
    const deadline = this.clock.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const lock = await this.#attempt(name, leaseKey, ttlMs);
      if (lock !== undefined) {
        if (signal?.aborted) {
          await lock.release();
          signal.throwIfAborted();
        }
        return lock;
      }
      const left = deadline - this.clock.now();
      if (left <= 0) throw new LockTimeoutError(name, waitMs);
      await pause(Math.min(backoffMs(attempt), left), signal);
    }
  }

  /** One try: the lock, or undefined when another holder has it (or this one won it too late to count on). */
  async #attempt(name: string, leaseKey: string, ttlMs: number): Promise<Lock | undefined> {
    const sentAt = this.clock.now();
    const value = encoder.encode(newToken());
    if (!(await this.path.add!(leaseKey, value, ttlMs))) return undefined;
    const lock = new HeldLock(name, this.path, leaseKey, value, sentAt + ttlMs);
    let token: number;
    try {
      token = await this.#nextToken(name);
    } catch (error) {
      await lock.release().catch(() => undefined);
      throw error;
    }
    if (this.clock.now() >= lock.expiresAt) {
      await lock.release();
      return undefined;
    }
    lock.token = token;
    return lock;
  }

  /**
   * The next fencing token of `name`. A counter that was absent (the first lock of the name,
   * or one lost to `clear()` or to eviction) restarts from the clock rather than from 1, so its
   * tokens stay above those handed out before it was lost unless those were taken at more than
   * one per millisecond on average since the counter was created.
   */
  async #nextToken(name: string): Promise<number> {
    const fenceKey = lockFenceKey(this.prefix, name);
    const token = await this.path.incr(fenceKey, 1);
    return token === 1 ? this.path.incr(fenceKey, Math.max(0, Math.floor(this.clock.now()))) : token;
  }
}

/** A lock this process holds: its lease's key and value, released by compare-and-delete. */
class HeldLock implements Lock {
  token = 0;
  #released: Promise<boolean> | undefined;

  constructor(
    readonly name: string,
    private readonly path: Store,
    private readonly leaseKey: string,
    private readonly value: Uint8Array,
    readonly expiresAt: number,
  ) {}

  release(): Promise<boolean> {
    if (this.#released === undefined) {
      const released = this.path.compareAndDelete!(this.leaseKey, this.value);
      this.#released = released;
      // A failed release may be tried again: the lease is still there, or it lapses on its own.
      released.catch(() => {
        if (this.#released === released) this.#released = undefined;
      });
    }
    return this.#released;
  }
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
