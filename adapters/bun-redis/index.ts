/**
 * cachette/adapters/bun-redis: a store on Valkey or Redis through Bun's built-in client
 * (`Bun.RedisClient`), for Bun only. It keeps the bytes of every value, so entries written here
 * and by the valkey store (iovalkey, on Node and Deno) are the same entries.
 *
 * ```ts
 * import { bunRedisStore } from 'cachette/adapters/bun-redis';
 * const cache = createCache({ store: bunRedisStore('redis://127.0.0.1:6379') });
 * ```
 */
import { StoreClosedError, StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';
import { PubSubBus } from '../../src/store/bus/pubsub-bus.ts';
import type { Coherence, CoherenceListener, CoherenceOptions, ExpireRequest, Store, StoreEntry } from '../../src/store/types.ts';
import { COMPARE_AND_DELETE_LUA, EXPIRE_ENTRIES_LUA, HEALTH_REPLIES, positiveMs, prefixPattern, SCAN_BATCH, TCP_COMPRESSION_THRESHOLD } from '../shared/redis-protocol.ts';
import { bunRedisClientClass, isBunRedisClient, type BunRedisClient, type BunRedisClientOptions } from './client.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';
import { BunRedisBusTransport } from './coherence-bus.ts';

export type { BunRedisClient, BunRedisClientOptions } from './client.ts';

/** Options of {@link bunRedisStore}. */
export interface BunRedisStoreOptions {
  /** A `redis://`, `rediss://`, `valkey://` or `valkeys://` URL, or a `Bun.RedisClient` you own. */
  connection: string | BunRedisClient;
  /** Extra client options when the store opens the connection itself. */
  clientOptions?: BunRedisClientOptions;
}

/**
 * Creates the counter with its TTL only when it is absent, then adds: one atomic server-side
 * step, because Bun's client has no MULTI helper and a counter must never exist without the
 * TTL it was created with.
 */
const INCR_WITH_TTL_LUA = `redis.call('SET', KEYS[1], '0', 'PX', ARGV[2], 'NX') return redis.call('INCRBY', KEYS[1], ARGV[1])`;

/** The code Bun's client gives an error reply of the server (as opposed to a connection failure). */
const SERVER_ERROR_CODE = 'ERR_REDIS_SERVER_ERROR';

const orUndefined = (value: Uint8Array | null): Uint8Array | undefined => value ?? undefined;
const holesAsUndefined = (values: Array<Uint8Array | null>): Array<Uint8Array | undefined> => values.map(orUndefined);
const nothing = (): void => undefined;

/** Longest pause between two reconnection attempts while the server is away. */
const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * A store on Valkey or Redis through `Bun.RedisClient`: one connection per store, commands of
 * one tick written together (Bun's auto-pipelining). Values are sent and read as bytes:
 * `getBuffer` is the only read of Bun's client that keeps them (`mget` and `send` decode
 * replies as UTF-8), so `getMany` is one pipelined GET per key: one round trip like an MGET, but
 * one command, one promise and one reply per key. Through the cache that costs more than the
 * valkey store's single MGET, which is why the valkey store is Bun's default for a Valkey URL
 * (runtimes/shared/valkey-client.ts has the figures).
 *
 * Commands never queue while the server is away: they reject at once with an error naming the
 * server, the cache counts a miss, and the next command after a short, growing pause (at most
 * 2 s) reconnects — so a dead server costs neither memory nor waiting callers.
 */
export class BunRedisStore implements Store {
  readonly name = 'bun-redis';
  /** One connection, pipelined: calls reach the server in the order they were made. */
  readonly ordered = true;
  /** The same server as the valkey store's, so the same default: see TCP_COMPRESSION_THRESHOLD. */
  readonly compressionThreshold = TCP_COMPRESSION_THRESHOLD;
  /** scheme://host:port only: messages name the server without its credentials. */
  readonly address: string;
  /** The underlying client, for commands the store contract does not cover. */
  readonly client: BunRedisClient;
  readonly #owned: boolean;
  #connecting: Promise<void> | undefined;
  #failures = 0;
  #retryAt = 0;
  #lastError: Error | undefined;
  /** The coherence bus for coherent L1 tiers, started by the first {@link coherence}. */
  #bus: PubSubBus | undefined;
  #closed = false;

  constructor(options: BunRedisStoreOptions | string) {
    const given = typeof options === 'string' ? { connection: options } : options;
    if (typeof given === 'object' && given !== null) checkKnownOptions(given, ['connection', 'clientOptions'] satisfies ReadonlyArray<keyof BunRedisStoreOptions>, 'bunRedisStore()');
    if (typeof given?.connection === 'string') {
      const Client = bunRedisClientClass();
      if (!Client) throw new TypeError('bunRedisStore: Bun.RedisClient is not available; run this under Bun ≥ 1.2.9, or use valkeyStore from cachette/adapters/valkey on Node and Deno');
      this.address = addressOf(given.connection);
      this.client = new Client(given.connection, {
        // A cache must answer fast when the server is away: no command waits in an offline
        // queue (it would grow without bound), and reconnection happens on demand, below.
        enableOfflineQueue: false,
        autoReconnect: false,
        connectionTimeout: 2000,
        ...given.clientOptions,
      });
      this.#owned = true;
    } else if (isBunRedisClient(given?.connection)) {
      this.client = given.connection;
      this.address = 'a client passed in';
      this.#owned = false;
    } else {
      throw new TypeError('bunRedisStore: "connection" must be a redis:// URL or a Bun.RedisClient');
    }
  }

  // The hot calls chain one `.then` on the client's promise rather than wrapping it in an
  // async function: one promise less per call, on the path every cached read takes.
  get(key: string): Promise<Uint8Array | undefined> {
    return this.#run(() => this.client.getBuffer(key).then(orUndefined, refusal));
  }

  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.#run(() => Promise.all(keys.map((key) => this.client.getBuffer(key))).then(holesAsUndefined, refusal));
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    return this.#run(() => (ttlMs === undefined ? this.client.set(key, value) : this.client.set(key, value, 'PX', String(positiveMs(ttlMs)))).then(nothing, refusal));
  }

  setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return this.#run(() => {
      if (entries.every((e) => e.ttlMs === undefined)) return this.client.mset(...entries.flatMap((e) => [e.key, e.value])).then(nothing, refusal);
      // Issued in one tick, the SETs leave in one write: one round trip.
      return Promise.all(entries.map((e) => (e.ttlMs === undefined ? this.client.set(e.key, e.value) : this.client.set(e.key, e.value, 'PX', String(positiveMs(e.ttlMs)))))).then(nothing, refusal);
    });
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    return this.#run(() => this.client.del(...keys).catch(refusal));
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    if (ttlMs === undefined) return this.#run(() => this.client.incrby(key, by).catch(refusal));
    return this.#run(() => this.client.send('EVAL', [INCR_WITH_TTL_LUA, '1', key, String(by), String(positiveMs(ttlMs))]).then(Number, refusal));
  }

  add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    return this.#run(async () => {
      const reply = await (ttlMs === undefined ? this.client.set(key, value, 'NX') : this.client.set(key, value, 'PX', String(positiveMs(ttlMs)), 'NX')).catch(refusal);
      return reply === 'OK';
    });
  }

  compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return this.#run(async () => Number(await this.client.send('EVAL', [COMPARE_AND_DELETE_LUA, '1', key, expected]).catch(refusal)) === 1);
  }

  /** One script (the valkey store's): each fresh entry's header rewritten in place, atomically per key. */
  expireEntries(request: ExpireRequest): Promise<number> {
    if (request.keys.length === 0) return Promise.resolve(0);
    return this.#run(() => this.client.send('EVAL', [EXPIRE_ENTRIES_LUA, String(request.keys.length), ...request.keys, String(request.now)]).then(Number, refusal));
  }

  clear(prefix: string): Promise<void> {
    return this.#run(async () => {
      const pattern = prefixPattern(prefix);
      let cursor = '0';
      do {
        const [next, keys] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', String(SCAN_BATCH));
        if (keys.length > 0) await this.client.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    });
  }

  /** Pub/sub with leased holders: PUBLISH on this connection, a subscriber beside it (adapters/bun-redis/coherence-bus.ts). */
  coherence(listener: CoherenceListener, options: CoherenceOptions): Coherence {
    if (this.#closed) throw new StoreClosedError(`bun-redis ${this.address}`);
    this.#bus ??= new PubSubBus(new BunRedisBusTransport(this.client, (channel, message) => this.#run(() => this.client.publish(channel, message))));
    return this.#bus.register(listener, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#bus?.close();
    this.#closed = true;
    if (this.#owned) this.client.close(); // A client passed in belongs to its owner.
  }

  /** Runs `command` on an open connection; connected, this adds two property reads. */
  #run<T>(command: () => Promise<T>): Promise<T> {
    // Closed: refused whoever owns the client (one passed in may well be connected still).
    if (this.#closed) return Promise.reject(new StoreClosedError(`bun-redis ${this.address}`));
    if (this.client.connected) return command();
    return this.#connect().then(command);
  }

  #connect(): Promise<void> {
    if (this.#connecting) return this.#connecting;
    // While the server is away, callers fail at once instead of each waiting for a handshake.
    if (Date.now() < this.#retryAt) return Promise.reject(this.#unreachable(this.#lastError));
    this.#connecting = this.client.connect().then(
      () => {
        this.#failures = 0;
        this.#connecting = undefined;
      },
      (error: unknown) => {
        this.#failures++;
        this.#retryAt = Date.now() + Math.min(this.#failures * 100, MAX_RECONNECT_DELAY_MS);
        this.#lastError = error instanceof Error ? error : new Error(String(error));
        this.#connecting = undefined;
        throw this.#unreachable(this.#lastError);
      },
    );
    return this.#connecting;
  }

  #unreachable(cause: Error | undefined): StoreUnavailableError {
    return new StoreUnavailableError(`bun-redis store: cannot reach ${this.address}${cause ? ` (${cause.message})` : ''}`, { cause });
  }
}

/**
 * An error reply about the command itself (not the server's state) becomes a
 * StoreRefusedError, which never counts against the store's health; connection failures and
 * replies about the server's state pass as they are.
 */
function refusal(error: unknown): never {
  if (error instanceof Error && (error as { code?: unknown }).code === SERVER_ERROR_CODE && !HEALTH_REPLIES.test(error.message)) {
    throw new StoreRefusedError(error.message, { cause: error });
  }
  throw error;
}

/** Creates a store on Valkey/Redis through Bun's built-in client, from a URL or a client you own. */
export function bunRedisStore(options: BunRedisStoreOptions | string): BunRedisStore {
  return new BunRedisStore(options);
}

/** True when this runtime has Bun's built-in Redis client, i.e. {@link bunRedisStore} can open a URL. */
export function hasBunRedisClient(): boolean {
  return bunRedisClientClass() !== undefined;
}

const PROTOCOLS = new Set(['redis:', 'rediss:', 'valkey:', 'valkeys:']);

/** The URL's scheme, host and port, after checking it is one Bun's client can open. */
function addressOf(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Reported below with the rest of the bad URLs.
  }
  if (!parsed || !PROTOCOLS.has(parsed.protocol) || parsed.hostname === '') {
    throw new TypeError('bunRedisStore: "connection" must be a redis://, rediss://, valkey:// or valkeys:// URL with a host');
  }
  return `${parsed.protocol}//${parsed.host}`;
}
