import type { Clock } from '../../src/cache/clock.ts';

/** A clock that moves only when told, for engine tests that must never sleep. */
export class FakeClock implements Clock {
  #t = Date.now();
  /** Milliseconds since the epoch, as the engine reads them. */
  readonly now = (): number => this.#t;
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.#t += ms;
  }
}
