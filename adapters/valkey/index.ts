import { Valkey, type RedisOptions } from 'iovalkey';
import type { Store, StoreEntry } from '../../src/store/types.ts';
import { COMPARE_AND_DELETE_LUA, positiveMs, prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';

/** Options of {@link valkeyStore}. */
export interface ValkeyStoreOptions {
  /** A `redis://` / `valkey://` / `rediss://` URL, or an iovalkey client you own. */
  connection: string | Valkey;
  /** Extra iovalkey options when the store opens the connection itself. */
  clientOptions?: RedisOptions;
  /**
   * Called on connection errors of a client the store opened. Commands issued while the
   * server is away fail anyway, and the cache reports those as error events, so by default
   * connection errors are not printed again.
   */
  onConnectionError?: (error: Error) => void;
}


type ValkeyWithScript = Valkey & {
  cachetteCompareAndDelete(key: string, expected: Buffer): Promise<number>;
};

/**
 * A store on Valkey or Redis over TCP through iovalkey. One connection per store, shared by
 * every call (commands pipeline on it); values travel as Buffers, so any bytes round-trip.
 */
export class ValkeyStore implements Store {
  readonly name = 'valkey';
  /** The underlying client, for commands the store contract does not cover. */
  readonly client: Valkey;
  readonly #owned: boolean;

  constructor(options: ValkeyStoreOptions | string) {
    const o = typeof options === 'string' ? { connection: options } : options;
    if (typeof o.connection === 'string') {
      this.client = new Valkey(o.connection, {
        // A cache must answer fast when the server is away: fail a command after one
        // reconnect attempt instead of queueing it for ever, and keep reconnecting with a
        // capped backoff so the cache recovers by itself when the server is back.
        maxRetriesPerRequest: 1,
        retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
        ...o.clientOptions,
      });
      this.#owned = true;
      this.client.on('error', o.onConnectionError ?? (() => {}));
    } else if (o.connection && typeof (o.connection as Valkey).getBuffer === 'function') {
      this.client = o.connection;
      this.#owned = false;
    } else {
      throw new TypeError('valkeyStore: "connection" must be a redis:// URL or an iovalkey client');
    }
    this.client.defineCommand('cachetteCompareAndDelete', { numberOfKeys: 1, lua: COMPARE_AND_DELETE_LUA });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return (await this.client.getBuffer(key)) ?? undefined;
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return [];
    const values = await this.client.mgetBuffer(...keys);
    return values.map((v) => v ?? undefined);
  }

  async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    const bytes = toBuffer(value);
    if (ttlMs === undefined) await this.client.set(key, bytes);
    else await this.client.set(key, bytes, 'PX', positiveMs(ttlMs));
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (entries.every((e) => e.ttlMs === undefined)) {
      await this.client.mset(entries.flatMap((e) => [e.key, toBuffer(e.value)]));
      return;
    }
    // One round trip: a pipeline is written to the socket in one go.
    const pipeline = this.client.pipeline();
    for (const e of entries) {
      if (e.ttlMs === undefined) pipeline.set(e.key, toBuffer(e.value));
      else pipeline.set(e.key, toBuffer(e.value), 'PX', positiveMs(e.ttlMs));
    }
    throwFirst(await pipeline.exec());
  }

  async delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return this.client.del(...keys);
  }

  async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    if (ttlMs === undefined) return this.client.incrby(key, by);
    // SET NX creates the counter with its TTL only when it is new; MULTI keeps the two
    // together so no other client can slip a write in between.
    const results = await this.client.multi().set(key, '0', 'PX', positiveMs(ttlMs), 'NX').incrby(key, by).exec();
    throwFirst(results);
    return Number(results![1]![1]);
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const reply = ttlMs === undefined
      ? await this.client.set(key, toBuffer(value), 'NX')
      : await this.client.set(key, toBuffer(value), 'PX', positiveMs(ttlMs), 'NX');
    return reply === 'OK';
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return (await (this.client as ValkeyWithScript).cachetteCompareAndDelete(key, toBuffer(expected))) === 1;
  }

  async clear(prefix: string): Promise<void> {
    const pattern = prefixPattern(prefix);
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH);
      if (keys.length > 0) await this.client.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  async close(): Promise<void> {
    if (!this.#owned) return; // A client passed in belongs to its owner.
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

/** Creates a Valkey/Redis store from a URL or an existing iovalkey client. */
export function valkeyStore(options: ValkeyStoreOptions | string): ValkeyStore {
  return new ValkeyStore(options);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function throwFirst(results: Array<[Error | null, unknown]> | null): void {
  if (!results) throw new Error('transaction aborted');
  for (const [error] of results) if (error) throw error;
}
