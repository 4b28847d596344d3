/**
 * The valkey store on one server. Commands are the store's own bytes (resp/encoder.ts), written
 * once per call on its own connection (resp/connection.ts) — or, given an iovalkey client, through
 * that client's queue — and a tick's pipeline is folded into as few native commands as its ops
 * allow: a run of reads is one MGET, a run of plain writes one MSET (a SET PX per expiring
 * entry), each delete one DEL (each caller gets its own count), each increment one INCRBY.
 * Scripts only where atomicity needs them: TTL'd increments, compareAndDelete, tag generations.
 */
import type { Redis as Valkey, RedisOptions } from 'iovalkey';
import type { IovalkeyClient, OptionsOf, ValkeyClientOptions } from './client-types.ts';
import { isNodeRedisClient, type NodeRedisClient } from './node-redis-client.ts';
import { NodeRedisLink } from './node-redis-link.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';
import { iovalkey } from './iovalkey.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { readKeyCount, readKeys, writeEntries, type DeleteOp } from '../../src/store/op-runs.ts';
import { PubSubBus } from '../../src/store/bus/pubsub-bus.ts';
import type { Coherence, CoherenceListener, CoherenceOptions, InvalidationListener, KeyPage, StoreOp, Tracking } from '../../src/store/types.ts';
import { prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';
import { call, type Route } from './channel.ts';
import { encodeDel, encodeGet, encodeMget, encodeMset, encodeReadRun, encodeSet, MAX_KEYS_PER_COMMAND } from './commands.ts';
import { classify, CountSink, type Round, ValueSink, ValuesSink, WriteSink } from './round.ts';
import { ClientLink, OwnLink, type ServerLink } from './server-links.ts';
import { ValkeyStoreBase } from './store-base.ts';
import { ValkeyBusTransport } from './coherence-bus.ts';
import { ValkeyTracking } from './tracking.ts';
import { checkUrl, connectionMistake, describe, iovalkeySocketTimeout, ownConnectionOptions } from './urls.ts';

/**
 * Options of {@link valkeyStore}. `Client` is the type of the client: the iovalkey or node-redis
 * one passed as `connection`, or iovalkey's `Redis` given as the type argument (see client-types.ts).
 */
export interface ValkeyStoreOptions<Client extends IovalkeyClient | NodeRedisClient = IovalkeyClient> {
  /**
   * A `redis://` / `rediss://` / `valkey://` / `valkeys://` URL, or a client you own (and open,
   * and close): an iovalkey client (`Redis`), or a node-redis 5 client without its own `clientSideCache`.
   */
  connection: string | Client;
  /**
   * Options for the connection when the store opens it itself, named as iovalkey names them. The
   * store's own connection takes host, port, path, family, tls, username, password, db,
   * connectionName, connectTimeout, keepAlive, retryStrategy, lazyConnect and socketTimeout; any
   * other option (sentinels, a custom Connector, commandTimeout, …) makes the store open an
   * iovalkey client with all of them instead.
   */
  clientOptions?: OptionsOf<Client, ValkeyClientOptions>;
  /**
   * Called on connection errors of a connection the store opened. Commands issued while the
   * server is away fail anyway, and the cache reports those (and the store going down, once),
   * so by default connection errors are not printed again.
   */
  onConnectionError?: (error: Error) => void;
}

/**
 * A store on Valkey or Redis over TCP, one server: see the module comment. One connection per
 * store, shared by every call: commands pipeline on it and keep their order, and values travel
 * as bytes, so any bytes round-trip. `Client` types {@link client}.
 */
export class ValkeyStore<Client extends IovalkeyClient | NodeRedisClient = IovalkeyClient> extends ValkeyStoreBase {
  readonly name = 'valkey';
  /** host:port (or socket path) of the server, for messages. */
  readonly address: string;
  readonly #link: ServerLink;
  readonly #route: Route;
  readonly #url: string | undefined;
  readonly #clientOptions: Readonly<Record<string, unknown>> | undefined;
  /** The iovalkey client opened on demand by {@link client} next to the store's own connection. */
  #extraClient: Valkey | undefined;
  /** CLIENT TRACKING for L1 tiers, started by the first {@link track}. */
  #tracking: ValkeyTracking | undefined;
  /** The coherence bus for coherent L1 tiers, started by the first {@link coherence}. */
  #bus: PubSubBus | undefined;

  constructor(options: ValkeyStoreOptions<Client> | string) {
    super();
    const o = (typeof options === 'string' ? { connection: options } : options) as { connection?: unknown; clientOptions?: Record<string, unknown>; onConnectionError?: (error: Error) => void };
    if (typeof o === 'object' && o !== null) {
      const mistake = connectionMistake(o);
      if (mistake) throw mistake;
      checkKnownOptions(o, ['connection', 'clientOptions', 'onConnectionError'] satisfies ReadonlyArray<keyof ValkeyStoreOptions>, 'valkeyStore()');
    }
    const report = o?.onConnectionError ?? (() => {});
    if (typeof o?.connection === 'string') {
      rejectKeyPrefix(o.clientOptions?.keyPrefix);
      this.#url = checkUrl(o.connection);
      this.#clientOptions = o.clientOptions;
      const own = ownConnectionOptions(this.#url, o.clientOptions ?? {});
      if (own) this.#link = new OwnLink(own, report);
      else {
        // Options only iovalkey implements: its client manages the connection, the store writes the bytes.
        const client = new (iovalkey('valkeyStore()').Redis)(this.#url, {
          // A cache must answer fast when the server is away: fail a command after one reconnect
          // attempt instead of queueing it for ever, and keep reconnecting with a capped backoff.
          maxRetriesPerRequest: 1,
          retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
          ...(o.clientOptions as RedisOptions),
          // A peer that stops answering is dropped, as on the store's own connection.
          socketTimeout: iovalkeySocketTimeout(o.clientOptions?.socketTimeout),
        });
        client.on('error', report);
        this.#link = new ClientLink(client, true);
      }
    } else if (isClient(o?.connection)) {
      rejectKeyPrefix(o.connection.options?.keyPrefix);
      this.#link = new ClientLink(o.connection, false);
    } else if (isNodeRedisClient(o?.connection)) {
      this.#link = new NodeRedisLink(o.connection);
    } else {
      throw new TypeError(
        `valkeyStore: "connection" must be a redis://, rediss://, valkey:// or valkeys:// URL (e.g. "redis://127.0.0.1:6379") or an iovalkey or node-redis client, got ${describe(o?.connection).replace('iovalkey client', 'iovalkey or node-redis client')}`,
      );
    }
    this.address = this.#link.address;
    this.#route = { channel: this.#link.channel };
  }

  /**
   * A client on the same server, for commands the store contract does not cover: the client
   * passed in (iovalkey or node-redis; or the iovalkey one opened for iovalkey-only options), or
   * else an iovalkey client opened on first use — a second connection, closed with the store.
   */
  get client(): Client {
    if (this.#link instanceof ClientLink || this.#link instanceof NodeRedisLink) return this.#link.client as unknown as Client;
    this.#extraClient ??= new (iovalkey('valkeyStore().client').Redis)(this.#url!, { maxRetriesPerRequest: 1, ...(this.#clientOptions as RedisOptions) });
    return this.#extraClient as unknown as Client;
  }

  protected get where(): string {
    return `valkey ${this.address}`;
  }

  /** Fails at once while the connection is known to be down: a dead store is a miss in microseconds. */
  protected unreachable(): StoreUnavailableError | undefined {
    const why = this.#link.unavailable();
    return why === undefined ? undefined : new StoreUnavailableError(`valkey ${this.address}: ${why}`);
  }

  protected route(): Route {
    return this.#route;
  }

  protected flush(): void {
    this.#link.channel.flush();
  }

  /** A lone get as GET; any other run of reads as one MGET (one per MAX_KEYS_PER_COMMAND keys), its values spread over the ops. */
  protected sendReads(round: Round, ops: readonly StoreOp[], from: number, to: number): void {
    const channel = this.#link.channel;
    const start = channel.encoder.size;
    const first = ops[from]!;
    if (to - from === 1 && first.kind === 'get') {
      encodeGet(channel.encoder, first.key);
      channel.expect(new ValueSink(round, from), start);
      return;
    }
    const count = readKeyCount(ops, from, to);
    if (count === 0) {
      for (let i = from; i < to; i++) round.results[i] = [];
      return;
    }
    if (count > MAX_KEYS_PER_COMMAND) {
      this.#sendReadPieces(round, ops, from, to);
      return;
    }
    encodeReadRun(channel.encoder, ops, from, to, count);
    channel.expect(new ValuesSink(round, ops, from, to, count), start);
  }

  /** A run of more keys than one MGET takes: an MGET per MAX_KEYS_PER_COMMAND of its keys, each filling its share of the ops. */
  #sendReadPieces(round: Round, ops: readonly StoreOp[], from: number, to: number): void {
    const channel = this.#link.channel;
    const keys = readKeys(ops, from, to);
    const size = (i: number) => {
      const op = ops[i]!;
      return op.kind === 'getMany' ? op.keys.length : 1;
    };
    // A getMany of no key that no piece reaches is answered here.
    for (let i = from; i < to; i++) if (size(i) === 0) round.results[i] = [];
    let op = from;
    let skip = 0;
    for (let at = 0; at < keys.length; at += MAX_KEYS_PER_COMMAND) {
      const count = Math.min(MAX_KEYS_PER_COMMAND, keys.length - at);
      const first = op;
      const firstSkip = skip;
      // Past `count` keys: ops that end on the way (an empty one included) are passed, and one that does not keeps `skip`.
      for (let left = count; left > 0; ) {
        const take = Math.min(size(op) - skip, left);
        left -= take;
        skip += take;
        if (skip === size(op)) {
          op++;
          skip = 0;
        }
      }
      const start = channel.encoder.size;
      encodeMget(channel.encoder, keys, at, at + count);
      channel.expect(new ValuesSink(round, ops, first, skip > 0 ? op + 1 : op, count, firstSkip), start);
    }
  }

  /**
   * Entries in order: each run without a TTL as one MSET (a SET when alone), each entry with one
   * as SET PX. One connection keeps their order, so a later write to a key wins; a command's
   * failure fails exactly the ops whose entries it carried.
   *
   * SET PX sets a key and its own expiry in one step. MSET then a PEXPIRE per key costs the
   * server as much and leaves a key without expiry if the connection drops between the two; a
   * script per tick costs the client least (one command) but the server about twice as much
   * (bench/phases/write-forms.ts: 10-entry setMany calls, 50 in flight, each entry with its own
   * TTL, six interleaved rounds on a loaded machine: 45–64 µs of server CPU per call with SET
   * PX, 42–90 with MSET + PEXPIRE, 84–158 with the script, which ran at 0.46–0.67× SET PX's rate
   * in five rounds of the six).
   */
  protected sendWrites(round: Round, ops: readonly StoreOp[], from: number, to: number): void {
    const channel = this.#link.channel;
    const encoder = channel.encoder;
    const { entries, owners } = writeEntries(ops, from, to);
    for (let i = from; i < to; i++) round.results[i] = undefined;
    for (let i = 0; i < entries.length; ) {
      const start = encoder.size;
      let end = i + 1;
      if (entries[i]!.ttlMs === undefined) while (end < entries.length && end - i < MAX_KEYS_PER_COMMAND && entries[end]!.ttlMs === undefined) end++;
      if (end - i === 1) {
        encodeSet(encoder, entries[i]!);
        channel.expect(new WriteSink('set', round, owners[i]!, owners[i]! + 1), start);
      } else {
        encodeMset(encoder, entries, i, end);
        channel.expect(new WriteSink('mset', round, owners[i]!, owners[end - 1]! + 1), start);
      }
      i = end;
    }
  }

  protected sendDelete(round: Round, at: number, op: DeleteOp): void {
    round.results[at] = 0;
    if (op.keys.length === 0) return;
    const channel = this.#link.channel;
    // Each DEL's count adds to the op's (CountSink).
    for (let from = 0; from < op.keys.length; from += MAX_KEYS_PER_COMMAND) {
      const start = channel.encoder.size;
      encodeDel(channel.encoder, op.keys, from, Math.min(from + MAX_KEYS_PER_COMMAND, op.keys.length));
      channel.expect(new CountSink('del', round, at), start);
    }
  }

  /** SCAN MATCH the prefix, UNLINK what each step finds, until the cursor comes back to 0. */
  async clear(prefix: string): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.#scan(prefix, cursor);
      if (keys.length > 0) await this.#call(['UNLINK', ...keys]);
      cursor = next;
    } while (cursor !== '0');
  }

  /** One SCAN MATCH step over the prefix; the cursor is the server's. */
  async keys(prefix: string, cursor = '0'): Promise<KeyPage> {
    if (!/^\d{1,20}$/.test(cursor)) throw new TypeError(`valkey store: keys() was given a cursor it never returned (${cursor.slice(0, 40)})`);
    const [next, keys] = await this.#scan(prefix, cursor);
    const found = keys.map((key) => key.toString());
    return next === '0' ? { keys: found } : { keys: found, cursor: next };
  }

  async #scan(prefix: string, cursor: string): Promise<[next: string, keys: Buffer[]]> {
    const down = this.down();
    if (down) throw down;
    const [next, keys] = (await this.#call(['SCAN', cursor, 'MATCH', prefixPattern(prefix), 'COUNT', SCAN_BATCH])) as [Buffer, Buffer[]];
    return [next.toString(), keys];
  }

  /** CLIENT TRACKING on this connection, invalidations on a second one (adapters/valkey/tracking.ts). */
  track(listener: InvalidationListener): Tracking {
    this.#tracking ??= new ValkeyTracking(this.#link);
    return this.#tracking.add(listener);
  }

  /** Pub/sub with leased holders: PUBLISH on this connection, a subscriber beside it (adapters/valkey/coherence-bus.ts). */
  coherence(listener: CoherenceListener, options: CoherenceOptions): Coherence {
    this.#bus ??= new PubSubBus(new ValkeyBusTransport(this.#link, true));
    return this.#bus.register(listener, options);
  }

  protected async closeConnections(): Promise<void> {
    await this.#bus?.close();
    await this.#tracking?.stop();
    const extra = this.#extraClient;
    if (extra) await extra.quit().catch(() => extra.disconnect());
    await this.#link.close();
  }

  /** One command off the hot path, its failure as the store's. */
  #call(args: ReadonlyArray<string | number | Uint8Array>): Promise<unknown> {
    return call(this.#link.channel, args).catch((error: Error) => Promise.reject(classify(error, this.where)));
  }
}

/** True for an iovalkey client (also one from another copy of the package). */
function isClient(value: unknown): value is Valkey {
  return typeof value === 'object' && value !== null && typeof (value as Valkey).getBuffer === 'function';
}

/** The store writes keys as given; iovalkey's keyPrefix would apply to some commands and not others. */
function rejectKeyPrefix(keyPrefix: unknown): void {
  if (keyPrefix) throw new TypeError(`valkeyStore: the iovalkey option keyPrefix (${JSON.stringify(keyPrefix)}) is not supported; give createCache a "prefix" (or a "namespace") instead`);
}
