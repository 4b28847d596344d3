/**
 * How the single-server store reaches its server: through its own connection (the default for a
 * URL: resp/connection.ts), or through an iovalkey client — one passed in, or one the store opens
 * because the options ask for what only iovalkey does (Sentinel, a custom Connector, …). Both
 * give the store the same things: a channel for its commands, whether the server is known to be
 * away, and what CLIENT TRACKING needs (tracking.ts).
 */
import type { Redis as Valkey } from 'iovalkey';
import { call, type Channel } from './channel.ts';
import { ClientAvailability } from './client-availability.ts';
import { ClientChannel } from './client-channel.ts';
import { replyCheckOf } from './replies.ts';
import { RespConnection, type RespConnectionOptions } from './resp/connection.ts';
import type { RespValue } from './resp/parser.ts';
import type { Subscriber, TrackedConnection } from './tracking.ts';

/** The store's way to its server; see the module comment. */
export interface ServerLink extends TrackedConnection {
  readonly channel: Channel;
  /** host:port (or socket path) of the server, for messages. */
  readonly address: string;
  /** Why commands must fail at once (the connection is known to be down), or undefined while it is up or still coming up. */
  unavailable(): string | undefined;
  /** Closes what the store opened; a client passed in stays open. */
  close(): Promise<void>;
}

/** A subscriber connection of the store's own to the server `options` name (for CLIENT TRACKING's invalidations). */
export function ownSubscriber(options: RespConnectionOptions): Subscriber {
  const connection = new RespConnection({ ...options, lazyConnect: false, subscriber: true });
  connection.on('error', () => {});
  return {
    on: (event, listener) => void connection.on(event, listener),
    onMessage: (listener) => void connection.on('message', (channel: Buffer, payload: RespValue) => listener(channel.toString(), payload)),
    command: (args) => connection.command(args, replyCheckOf(args)),
    reconnect: () => connection.drop(),
    close: () => connection.disconnect(),
  };
}

/** The store's own connection. */
export class OwnLink implements ServerLink {
  readonly #connection: RespConnection;
  readonly #options: RespConnectionOptions;

  constructor(options: RespConnectionOptions, onError: (error: Error) => void) {
    this.#options = options;
    this.#connection = new RespConnection(options);
    this.#connection.on('error', onError);
  }

  get channel(): Channel {
    return this.#connection;
  }

  get address(): string {
    return this.#connection.address;
  }

  get ready(): boolean {
    return this.#connection.status === 'ready';
  }

  unavailable(): string | undefined {
    const connection = this.#connection;
    if (connection.status === 'ready' || (connection.lastError === undefined && connection.status !== 'end')) return undefined;
    return connection.lastError?.message ?? 'connection closed';
  }

  on(event: 'ready' | 'close', listener: () => void): void {
    this.#connection.on(event, listener);
  }

  off(event: 'ready' | 'close', listener: () => void): void {
    this.#connection.off(event, listener);
  }

  command(args: readonly string[]): Promise<RespValue> {
    return this.#connection.command(args, replyCheckOf(args));
  }

  openSubscriber(): Subscriber {
    return ownSubscriber(this.#options);
  }

  async close(): Promise<void> {
    await this.#connection.quit();
  }
}

/** An iovalkey client, which keeps managing its connection; the store's commands go through its queue. */
export class ClientLink implements ServerLink {
  readonly client: Valkey;
  readonly channel: ClientChannel;
  readonly address: string;
  readonly #availability: ClientAvailability;

  constructor(client: Valkey, owned: boolean) {
    this.client = client;
    this.channel = new ClientChannel(client);
    const { host, port, path } = client.options;
    this.address = path ? String(path) : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
    this.#availability = new ClientAvailability(client, owned);
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  unavailable(): string | undefined {
    return this.#availability.unavailable;
  }

  on(event: 'ready' | 'close', listener: () => void): void {
    this.client.on(event, listener);
  }

  off(event: 'ready' | 'close', listener: () => void): void {
    this.client.off(event, listener);
  }

  command(args: readonly string[]): Promise<RespValue> {
    return call(this.channel, args);
  }

  openSubscriber(): Subscriber {
    const sub = this.client.duplicate({ autoResubscribe: false, enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    sub.on('error', () => {});
    return {
      on: (event, listener) => void sub.on(event, listener),
      onMessage: (listener) => void sub.on('messageBuffer', (channel: Buffer, payload: RespValue) => listener(channel.toString(), payload)),
      // Lower case, as iovalkey's own methods name commands: it recognises SUBSCRIBE (subscriber mode) only so.
      // iovalkey parses this connection's replies into its own shapes (SUBSCRIBE answers a count), and checks them itself.
      command: (args) => sub.call(args[0]!.toLowerCase(), ...args.slice(1)) as Promise<RespValue>,
      reconnect: () => sub.disconnect(true),
      close: () => sub.disconnect(),
    };
  }

  close(): Promise<void> {
    return this.#availability.close();
  }
}
