/**
 * The coherence bus of the valkey store (Store.coherence): the shared pub/sub protocol of
 * src/store/bus/pubsub-bus.ts over the store's own connection, which PUBLISHes (in order with
 * the store's commands, so an invalidation executes right behind its write, in the same round
 * trip), and one subscriber connection beside it: the second and last connection a process
 * holds on the server (the one CLIENT TRACKING would use).
 *
 * Both connections must be up for the bus to be: when the store's connection drops, the
 * subscriber is dropped too, so that the server stops counting this process among the holders
 * of anything while it could not acknowledge (writers would wait a lease for it each time).
 */
import type { BusTransport } from '../../src/store/bus/pubsub-bus.ts';
import { BusTransportBase } from '../../src/store/bus/transport-base.ts';
import type { Subscriber, TrackedConnection } from './tracking.ts';

/** The two connections of the bus, on one server. */
export class ValkeyBusTransport extends BusTransportBase implements BusTransport {
  readonly ordered: boolean;
  readonly #main: TrackedConnection;
  #sub: Subscriber | undefined;
  #subReady = false;
  readonly #onMainReady = () => this.#update();
  readonly #onMainClose = () => {
    this.#update();
    // Not counted as a holder while acknowledgements cannot leave: the subscriber goes too.
    if (this.#subReady) this.#sub?.reconnect();
  };

  readonly #closeMain: (() => Promise<void>) | undefined;

  /**
   * `ordered`: whether PUBLISH on `main` executes after the store's writes issued before it (one
   * server: yes). `closeMain`: given when `main` belongs to the bus (a cluster's bus node), to close it with the bus.
   */
  constructor(main: TrackedConnection, ordered: boolean, closeMain?: () => Promise<void>) {
    super();
    this.#main = main;
    this.ordered = ordered;
    this.#closeMain = closeMain;
    main.on('ready', this.#onMainReady);
    main.on('close', this.#onMainClose);
    const sub = main.openSubscriber();
    this.#sub = sub;
    sub.on('ready', () => {
      this.#subReady = true;
      this.#update();
    });
    sub.on('close', () => {
      this.#subReady = false;
      this.#update();
    });
    sub.onMessage((channel, payload) => {
      const text = Buffer.isBuffer(payload) ? payload.toString() : String(payload);
      this.deliver(channel, text);
    });
  }

  async subscribe(channel: string): Promise<void> {
    const sub = this.#sub;
    if (sub === undefined || !this.up) throw new Error('the coherence bus is down');
    // The reply's shape is checked by the connection (replies.ts): a wrong one drops it.
    await sub.command(['SUBSCRIBE', channel]);
  }

  async unsubscribe(channel: string): Promise<void> {
    const sub = this.#sub;
    if (sub === undefined || !this.up) throw new Error('the coherence bus is down');
    await sub.command(['UNSUBSCRIBE', channel]);
  }

  async publish(channel: string, message: string): Promise<number> {
    // An integer, checked by the connection (replies.ts).
    return (await this.#main.command(['PUBLISH', channel, message])) as number;
  }

  async close(): Promise<void> {
    this.#main.off('ready', this.#onMainReady);
    this.#main.off('close', this.#onMainClose);
    const sub = this.#sub;
    this.#sub = undefined;
    this.#subReady = false;
    this.#update();
    sub?.close();
    await this.#closeMain?.();
  }

  #update(): void {
    this.setUp(this.#sub !== undefined && this.#subReady && this.#main.ready);
  }
}
