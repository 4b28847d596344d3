/**
 * What every {@link BusTransport} does alike: its listeners, and `up` told to them only when it
 * changes. A transport says what its connections are (and when they change) by {@link setUp},
 * and hands each message to {@link deliver}.
 */
import type { BusTransport } from './pubsub-bus.ts';

/** The listener side of a {@link BusTransport}; subclasses own the connections. */
export abstract class BusTransportBase implements Pick<BusTransport, 'up' | 'onState' | 'onMessage'> {
  #up = false;
  readonly #stateListeners: Array<(up: boolean) => void> = [];
  readonly #messageListeners: Array<(channel: string, message: string) => void> = [];

  get up(): boolean {
    return this.#up;
  }

  onState(listener: (up: boolean) => void): void {
    this.#stateListeners.push(listener);
  }

  onMessage(listener: (channel: string, message: string) => void): void {
    this.#messageListeners.push(listener);
  }

  /** Both connections are up (true) or not; listeners hear of changes only. */
  protected setUp(up: boolean): void {
    if (up === this.#up) return;
    this.#up = up;
    for (const listener of this.#stateListeners) listener(up);
  }

  /** One message of a subscribed channel. */
  protected deliver(channel: string, message: string): void {
    for (const listener of this.#messageListeners) listener(channel, message);
  }
}
