/**
 * The coherence bus of the bun-redis store (Store.coherence): the shared pub/sub protocol of
 * src/store/bus/pubsub-bus.ts over Bun's client. The store's own connection PUBLISHes, in order
 * with the store's commands (one pipelined connection: an invalidation executes right behind
 * its write), and one subscriber beside it, a `duplicate()` of that connection: two server
 * connections per process, as on the valkey store. The wire format is the valkey store's, so
 * caches on either store share one bus.
 *
 * Both connections must be up for the bus to be. Bun's client reconnects nothing by itself
 * here (the store turns that off), so the transport does: when the store's connection drops,
 * the subscriber is closed too (the server stops counting this process among the holders while
 * it could not acknowledge, so writers do not wait a lease for it each time), and once the
 * store's connection is back (any store call reconnects it) a new subscriber is opened. Every
 * drop ends the bus's session: memory is flushed and bypassed until a beat confirms it again.
 */
import type { BusTransport } from '../../src/store/bus/pubsub-bus.ts';
import { BEAT_MS } from '../../src/store/bus/format.ts';
import { BusTransportBase } from '../../src/store/bus/transport-base.ts';
import type { BunRedisClient } from './client.ts';

type Handler = ((this: BunRedisClient, error?: Error) => void) | null | undefined;

/** The two connections of the bus: the store's client, and a subscriber duplicated from it. */
export class BunRedisBusTransport extends BusTransportBase implements BusTransport {
  /** PUBLISH goes on the store's one pipelined connection, behind the writes issued before it. */
  readonly ordered = true;
  readonly #main: BunRedisClient;
  readonly #publish: (channel: string, message: string) => Promise<unknown>;
  #sub: BunRedisClient | undefined;
  #opening = false;
  #closed = false;
  readonly #timer: ReturnType<typeof setInterval>;
  // Whatever arrives is the format's to judge (it distrusts anything odd).
  readonly #deliver = (message: unknown, channel: unknown): void => this.deliver(String(channel), String(message));
  readonly #previousConnect: Handler;
  readonly #previousClose: Handler;
  readonly #onConnect: Handler;
  readonly #onClose: Handler;

  /**
   * `main` is the store's client; `publish` sends PUBLISH on it through the store (which
   * reconnects it on demand and refuses once closed).
   */
  constructor(main: BunRedisClient, publish: (channel: string, message: string) => Promise<unknown>) {
    super();
    this.#main = main;
    this.#publish = publish;
    // Chained, not replaced: a client passed in may have handlers of its owner's.
    this.#previousConnect = main.onconnect;
    this.#previousClose = main.onclose;
    const previousConnect = this.#previousConnect;
    const previousClose = this.#previousClose;
    const check = () => this.#check();
    this.#onConnect = function (this: BunRedisClient) {
      previousConnect?.call(this);
      check();
    };
    this.#onClose = function (this: BunRedisClient, error?: Error) {
      previousClose?.call(this, error);
      check();
    };
    main.onconnect = this.#onConnect;
    main.onclose = this.#onClose;
    // A drop no handler reported (an owner replaced them) is still noticed, within a beat.
    this.#timer = setInterval(check, BEAT_MS);
    (this.#timer as { unref?: () => void }).unref?.();
    this.#check();
  }

  async subscribe(channel: string): Promise<void> {
    const sub = this.#sub;
    if (sub === undefined || !this.up) throw new Error('the coherence bus is down');
    await sub.subscribe(channel, this.#deliver);
  }

  async publish(channel: string, message: string): Promise<number> {
    const receivers = await this.#publish(channel, message);
    // The count decides how many acknowledgements a writer waits for: anything else is a broken peer.
    if (typeof receivers !== 'number' || !Number.isSafeInteger(receivers) || receivers < 0) throw new Error(`PUBLISH answered ${typeof receivers}, not a count`);
    return receivers;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    if (this.#main.onconnect === this.#onConnect) this.#main.onconnect = this.#previousConnect;
    if (this.#main.onclose === this.#onClose) this.#main.onclose = this.#previousClose;
    this.#dropSubscriber();
    this.#update();
  }

  /** Brings the subscriber in line with the store's connection: closed while it is down, opened once it is up. */
  #check(): void {
    if (this.#closed) return;
    if (!this.#main.connected) this.#dropSubscriber();
    else if (this.#sub !== undefined && !this.#sub.connected) this.#dropSubscriber();
    else if (this.#sub === undefined && !this.#opening) void this.#open();
    this.#update();
  }

  async #open(): Promise<void> {
    this.#opening = true;
    let sub: BunRedisClient | undefined;
    try {
      sub = await this.#main.duplicate();
    } catch {
      // Tried again on the next check.
    }
    this.#opening = false;
    if (sub === undefined) return;
    if (this.#closed || !sub.connected || !this.#main.connected) {
      sub.close();
      return;
    }
    sub.onclose = () => {
      if (this.#sub !== sub) return;
      this.#sub = undefined;
      this.#update();
    };
    this.#sub = sub;
    this.#update();
  }

  #dropSubscriber(): void {
    const sub = this.#sub;
    if (sub === undefined) return;
    this.#sub = undefined;
    sub.close();
  }

  #update(): void {
    this.setUp(!this.#closed && this.#sub !== undefined && this.#sub.connected && this.#main.connected);
  }
}
