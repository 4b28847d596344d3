/**
 * The single-server store through a node-redis 5 client the user passes in (`createClient()` from
 * `redis` or `@redis/client`, connected by its owner): the client keeps managing its connection
 * (connect, TLS, auth, reconnect, its offline queue), and each of the store's commands goes
 * through its public `sendCommand`, bulk replies mapped to bytes, so values round-trip as bytes.
 *
 * node-redis takes a command as its arguments, not as bytes: the commands the store encoded are
 * read back by the store's own RESP parser (a request is an array of bulk strings), so the format
 * stays defined once (resp/encoder.ts). Its replies arrive one promise per command, already
 * matched to their command by node-redis; a reply no command of the store can have fails that
 * command as a protocol error.
 *
 * CLIENT TRACKING (tracking.ts) needs the server's id of this connection and a second connection
 * subscribed to invalidations: the second one is the store's own, opened with the client's
 * address and credentials. A client with node-redis's own client-side cache has tracking on its
 * connection already, in a mode the store cannot share: valkeyStore refuses it (docs/stores.md).
 */
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { type Channel, QueuedChannel } from './channel.ts';
import { replyCheckOf } from './replies.ts';
import type { RespConnectionOptions } from './resp/connection.ts';
import { ReplyError, RespParser, RespProtocolError, type RespValue } from './resp/parser.ts';
import type { WireCommand } from './round.ts';
import { ownSubscriber, type ServerLink } from './server-links.ts';
import type { NodeRedisClient, NodeRedisClientOptions } from './node-redis-client.ts';
import type { Subscriber } from './tracking.ts';

/** RESP's type byte of a bulk string (`$`): node-redis hands it out as a Buffer, as the store reads it. */
const BULK_STRING = 0x24;
const AS_BYTES = { typeMapping: { [BULK_STRING]: Buffer } };

/** A node-redis client's reply as the store's parser would give it; see the module comment. */
function asResp(value: unknown): RespValue | undefined {
  if (value === null || typeof value === 'number' || typeof value === 'string' || Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) {
    const items: RespValue[] = [];
    for (const item of value) {
      const converted = asResp(item);
      if (converted === undefined) return undefined;
      items.push(converted);
    }
    return items;
  }
  return undefined;
}

/** The store's commands through the client's `sendCommand`, handed over at the end of the turn. */
class NodeRedisChannel extends QueuedChannel {
  readonly #client: NodeRedisClient;

  constructor(client: NodeRedisClient) {
    super();
    this.#client = client;
  }

  protected send(pending: readonly WireCommand[], chunks: Buffer[]): void {
    // Each request is one array of bulk strings, in the order the commands were expected.
    const requests: Buffer[][] = [];
    const parser = new RespParser((value) => requests.push(value as Buffer[]));
    for (const chunk of chunks) parser.feed(chunk);
    for (let i = 0; i < pending.length; i++) this.#send(pending[i]!, requests[i]!);
  }

  #send(command: WireCommand, args: Buffer[]): void {
    this.#client.sendCommand(args, AS_BYTES).then(
      (reply) => {
        const value = asResp(reply);
        if (value === undefined || !command.resolve(value)) command.reject(new RespProtocolError(`a reply to ${command.name.toUpperCase()} that cannot answer it`));
      },
      (error: Error) => {
        // node-redis's ErrorReply is the server's error reply: the store knows it by its name.
        const known = error.constructor.name === 'SimpleError' || error.constructor.name === 'BlobError' || error.constructor.name === 'ErrorReply';
        command.reject(known ? new ReplyError(error.message) : new StoreUnavailableError(error.message, { cause: error }));
      },
    );
  }
}

/** The store's way to its server through a node-redis client; see the module comment. */
export class NodeRedisLink implements ServerLink {
  readonly client: NodeRedisClient;
  readonly channel: Channel;
  readonly address: string;
  readonly #own: RespConnectionOptions;
  /** Why the client is known to be down: its last error while it was not ready. */
  #unavailable: string | undefined;
  readonly #onError = (error?: Error): void => {
    if (!this.client.isReady) this.#unavailable = error?.message ?? 'connection error';
  };
  readonly #onEnd = (): void => {
    this.#unavailable ??= 'connection closed';
  };
  readonly #onReady = (): void => {
    this.#unavailable = undefined;
  };

  constructor(client: NodeRedisClient) {
    const options = client.options ?? {};
    if (options.clientSideCache !== undefined)
      throw new TypeError(
        'valkeyStore: a node-redis client with its own clientSideCache has CLIENT TRACKING on its connection in a mode the store cannot share; pass a client without it (give the cache an L1 instead)',
      );
    this.client = client;
    this.channel = new NodeRedisChannel(client);
    this.#own = connectionOptionsOf(options);
    this.address = this.#own.path ?? `${this.#own.host ?? '127.0.0.1'}:${this.#own.port ?? 6379}`;
    client.on('error', this.#onError);
    client.on('end', this.#onEnd);
    client.on('ready', this.#onReady);
  }

  get ready(): boolean {
    return this.client.isReady;
  }

  unavailable(): string | undefined {
    if (!this.client.isOpen) return 'the node-redis client is not open (connect it, or it was closed)';
    return this.#unavailable === undefined || this.client.isReady ? undefined : this.#unavailable;
  }

  on(event: 'ready' | 'close', listener: () => void): void {
    this.client.on(event === 'close' ? 'end' : 'ready', listener);
  }

  off(event: 'ready' | 'close', listener: () => void): void {
    this.client.off(event === 'close' ? 'end' : 'ready', listener);
  }

  command(args: readonly string[]): Promise<RespValue> {
    const reply = this.client.sendCommand(args, AS_BYTES);
    return reply.then((value) => {
      const resp = asResp(value);
      if (resp === undefined || !replyCheckOf(args)(resp)) throw new RespProtocolError(`a reply to ${String(args[0]).toUpperCase()} that cannot answer it`);
      return resp;
    });
  }

  openSubscriber(): Subscriber {
    return ownSubscriber(this.#own);
  }

  /** Stops watching the client: its owner closes it. */
  async close(): Promise<void> {
    this.client.off('error', this.#onError);
    this.client.off('end', this.#onEnd);
    this.client.off('ready', this.#onReady);
  }
}

/** The address and credentials of a node-redis client, for the store's own subscriber connection. */
function connectionOptionsOf(options: NodeRedisClientOptions): RespConnectionOptions {
  const own: RespConnectionOptions = {};
  if (options.url) {
    const url = new URL(options.url);
    own.host = url.hostname.replace(/^\[|\]$/g, '');
    if (url.port) own.port = Number(url.port);
    if (url.username) own.username = decodeURIComponent(url.username);
    if (url.password) own.password = decodeURIComponent(url.password);
    const db = url.pathname.slice(1);
    if (db) own.db = Number(db);
    if (url.protocol === 'rediss:') own.tls = {};
  }
  const socket: { host?: unknown; port?: unknown; path?: unknown; tls?: unknown } = options.socket ?? {};
  if (typeof socket.host === 'string') own.host = socket.host;
  if (typeof socket.port === 'number') own.port = socket.port;
  if (typeof socket.path === 'string') own.path = socket.path;
  if (socket.tls === true) own.tls = {};
  if (options.username !== undefined) own.username = options.username;
  if (options.password !== undefined) own.password = options.password;
  if (options.database !== undefined) own.db = options.database;
  return own;
}
