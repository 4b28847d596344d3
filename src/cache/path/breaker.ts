import type { Clock } from '../clock.ts';

/** Which half of a store's health a breaker watches: reads and writes fail for different reasons. */
export type HealthKind = 'read' | 'write';

/**
 * A change of a breaker's state, reported once per change: `failing` at the first failure of a
 * healthy store and `answering` at the success that ends a run of failures too short to open
 * the breaker (so that a store that never answered is said at once, not after `threshold`
 * calls); `down` when the breaker opens and `up` when it closes again.
 */
export type HealthChange =
  | { kind: HealthKind; state: 'failing'; cause: string }
  | { kind: HealthKind; state: 'answering' }
  | { kind: HealthKind; state: 'down'; cause: string; failures: number }
  | { kind: HealthKind; state: 'up'; downForMs: number; skipped: number };

const CLOSED = 0;
const OPEN = 1;
const PROBING = 2;

/**
 * A circuit breaker for one kind of store call. Closed: every call goes through, and
 * `threshold` consecutive failures open it. Open: calls are skipped for `cooldownMs`. Then one
 * call, and only one, is let through as a probe while every other call is still skipped: its
 * success closes the breaker, its failure opens it for another cool-down. A store that stays
 * down therefore costs one probe per cool-down, whatever the traffic.
 */
export class Breaker {
  #state = CLOSED;
  #failures = 0;
  #openUntil = 0;
  #downSince = 0;
  #skipped = 0;

  constructor(
    readonly kind: HealthKind,
    readonly threshold: number,
    readonly cooldownMs: number,
    private readonly clock: Clock,
    private readonly onChange: (change: HealthChange) => void,
  ) {}

  /** True while the breaker holds the store as down (open or probing). */
  get down(): boolean {
    return this.#state !== CLOSED;
  }

  /** Calls skipped since the breaker opened. */
  get skipped(): number {
    return this.#skipped;
  }

  /** Whether a call may go to the store now; a refused call must not be sent. */
  admit(): boolean {
    if (this.#state === CLOSED) return true;
    if (this.#state === OPEN && this.clock.now() >= this.#openUntil) {
      this.#state = PROBING;
      return true;
    }
    this.#skipped++;
    return false;
  }

  /** Records a call that reached the store and was answered. */
  success(): void {
    if (this.#state === CLOSED) {
      if (this.#failures !== 0) {
        this.#failures = 0;
        this.onChange({ kind: this.kind, state: 'answering' });
      }
      return;
    }
    const change: HealthChange = { kind: this.kind, state: 'up', downForMs: this.clock.now() - this.#downSince, skipped: this.#skipped };
    this.#state = CLOSED;
    this.#failures = 0;
    this.#skipped = 0;
    this.onChange(change);
  }

  /**
   * Records a call that says nothing about the store's health (it was closed: see
   * StoreClosedError): nothing changes, except that a probe it was lets the next call through
   * as a probe at once, so that the breaker never waits for a verdict that will not come.
   */
  inconclusive(): void {
    if (this.#state === PROBING) {
      this.#state = OPEN;
      this.#openUntil = 0;
    }
  }

  /** Records a call that failed because of the store's health (not one the store refused on its merits). */
  failure(cause: string): void {
    const now = this.clock.now();
    if (this.#state !== CLOSED) {
      // A failed probe (or a late failure of a call sent before the breaker opened): still down.
      this.#state = OPEN;
      this.#openUntil = now + this.cooldownMs;
      return;
    }
    if (++this.#failures < this.threshold) {
      if (this.#failures === 1) this.onChange({ kind: this.kind, state: 'failing', cause });
      return;
    }
    this.#state = OPEN;
    this.#openUntil = now + this.cooldownMs;
    this.#downSince = now;
    this.onChange({ kind: this.kind, state: 'down', cause, failures: this.#failures });
  }
}
