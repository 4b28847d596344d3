import { Redis as Valkey, type RedisOptions } from 'iovalkey';
import { StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';
import type { GenerationRead, GenerationReadResult, GenerationWrite, InvalidationListener, Store, StoreEntry, StoreOp, StoreOpResult, Tracking } from '../../src/store/types.ts';
import { COMPARE_AND_DELETE_LUA, DELETE_EACH_LUA, INCR_MANY_LUA, INCR_WITH_TTL_LUA, positiveMs, prefixPattern, SCAN_BATCH, SET_MANY_LUA } from '../shared/redis-protocol.ts';
import { defineGenerationScripts, readWithGenerations, writeGenerations } from './generations.ts';
import { ValkeyTracking } from './tracking.ts';

/** Options of {@link valkeyStore}. */
export interface ValkeyStoreOptions {
  /** A `redis://` / `rediss://` / `valkey://` / `valkeys://` URL, or an iovalkey client you own. */
  connection: string | Valkey;
  /** Extra iovalkey options when the store opens the connection itself. */
  clientOptions?: RedisOptions;
  /**
   * Called on connection errors of a client the store opened. Commands issued while the
   * server is away fail anyway, and the cache reports those (and the store going down, once),
   * so by default connection errors are not printed again.
   */
  onConnectionError?: (error: Error) => void;
}

type ValkeyWithScripts = Valkey & {
  cachetteCompareAndDelete(key: string, expected: Buffer): Promise<number>;
  cachetteIncrPx(key: string, by: number, ttlMs: number): Promise<number>;
  /** Scripts without a fixed key count take it as their first argument. */
  cachetteIncrMany(...args: Array<string | number>): Promise<Array<number | Error>>;
  cachetteDeleteEach(...args: Array<string | number>): Promise<number[]>;
  cachetteSetMany(...args: Array<string | number | Buffer>): Promise<number>;
};

/**
 * From this many increments, deletes or expiring writes in a row, one script replaces one
 * command per op: the server runs one command instead of many, and the client builds one
 * command and parses one reply. Below it, plain commands cost less than a script call.
 */
const SCRIPT_RUN = 3;

/** A server that refuses scripts (disabled, or not allowed to this user): plain commands from then on. */
const NO_SCRIPTS = /unknown command|NOPERM|not allowed|disabled/i;

/**
 * Server replies that say something about the server's state rather than about the command:
 * out of memory, loading its data, a read-only replica, a cluster in trouble. They count
 * against the store's health; every other error reply (WRONGTYPE, ERR not an integer …) is the
 * command's own fault and leaves the store healthy.
 */
const HEALTH_REPLIES = /^(OOM|LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\b/;

/** Payloads from this size on are compressed by default: on a server in the same data centre, smaller ones cost more CPU than their bytes cost. */
const COMPRESSION_THRESHOLD = 32 * 1024;

const URL_PROTOCOLS = ['redis:', 'rediss:', 'valkey:', 'valkeys:'];

/**
 * A store on Valkey or Redis over TCP through iovalkey. One connection per store, shared by
 * every call: commands pipeline on it and keep their order, and values travel as Buffers, so
 * any bytes round-trip. A pipeline (one tick of the engine's calls) is written to the socket in
 * one go, with runs of gets merged into one MGET and runs of plain sets into one MSET.
 */
export class ValkeyStore implements Store {
  readonly name = 'valkey';
  readonly ordered = true;
  readonly compressionThreshold = COMPRESSION_THRESHOLD;
  /** host:port (or socket path) of the server, for messages. */
  readonly address: string;
  /** The underlying client, for commands the store contract does not cover. */
  readonly client: Valkey;
  readonly #owned: boolean;
  /** Why the connection is known to be down, or undefined while it is up (or still coming up). */
  #unavailable: string | undefined;
  /** False once the server refused a script: runs then go as one plain command per op. */
  #scripts = true;
  /** CLIENT TRACKING for L1 tiers, started by the first {@link track}. */
  #tracking: ValkeyTracking | undefined;

  constructor(options: ValkeyStoreOptions | string) {
    const o = typeof options === 'string' ? { connection: options } : options;
    if (typeof o?.connection === 'string') {
      this.client = new Valkey(checkUrl(o.connection), {
        // A cache must answer fast when the server is away: fail a command after one
        // reconnect attempt instead of queueing it for ever, and keep reconnecting with a
        // capped backoff so the cache recovers by itself when the server is back.
        maxRetriesPerRequest: 1,
        retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
        ...o.clientOptions,
      });
      this.#owned = true;
      this.client.on('error', o.onConnectionError ?? (() => {}));
    } else if (o?.connection && typeof (o.connection as Valkey).getBuffer === 'function') {
      this.client = o.connection;
      this.#owned = false;
    } else {
      throw new TypeError(
        `valkeyStore: "connection" must be a redis://, rediss://, valkey:// or valkeys:// URL (e.g. "redis://127.0.0.1:6379") or an iovalkey client, got ${describe(o?.connection)}`,
      );
    }
    const { host, port, path } = this.client.options;
    this.address = path ? String(path) : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
    this.client.on('error', (error: Error) => {
      if (this.client.status !== 'ready') this.#unavailable = error.message;
    });
    this.client.on('close', () => {
      this.#unavailable ??= 'connection closed';
    });
    this.client.on('ready', () => {
      this.#unavailable = undefined;
    });
    this.client.defineCommand('cachetteCompareAndDelete', { numberOfKeys: 1, lua: COMPARE_AND_DELETE_LUA });
    this.client.defineCommand('cachetteIncrPx', { numberOfKeys: 1, lua: INCR_WITH_TTL_LUA });
    this.client.defineCommand('cachetteIncrMany', { lua: INCR_MANY_LUA });
    this.client.defineCommand('cachetteDeleteEach', { lua: DELETE_EACH_LUA });
    this.client.defineCommand('cachetteSetMany', { lua: SET_MANY_LUA });
    defineGenerationScripts(this.client);
  }

  get(key: string): Promise<Uint8Array | undefined> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.client.getBuffer(key).then(orUndefined, refusal);
  }

  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.client.mgetBuffer(keys as string[]).then((values) => values.map(orUndefined), refusal);
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.#set(key, value, ttlMs).then(nothing, refusal);
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const down = this.#down();
    if (down) throw down;
    await this.#corked(() => Promise.all(this.#writeEntries(entries))).catch(refusal);
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.client.del(keys as string[]).catch(refusal);
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.#incr(key, by, ttlMs).catch(refusal);
  }

  async pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    const down = this.#down();
    if (down) throw down;
    const results = new Array<StoreOpResult>(ops.length);
    const answers = this.#corked(() => {
      const pending: Array<Promise<void>> = [];
      for (let i = 0; i < ops.length; ) i = this.#issue(ops, i, results, pending);
      return pending;
    });
    await Promise.all(answers);
    // Every op failing for the same reason is the connection failing: one failure, not many.
    const first = results[0];
    if (first instanceof Error && !(first instanceof StoreRefusedError) && results.every((r) => r === first || (r instanceof Error && r.message === first.message))) throw first;
    return results;
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const down = this.#down();
    if (down) throw down;
    const reply = await (ttlMs === undefined
      ? this.client.set(key, toBuffer(value), 'NX')
      : this.client.set(key, toBuffer(value), 'PX', positiveMs(ttlMs), 'NX')
    ).catch(refusal);
    return reply === 'OK';
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    const down = this.#down();
    if (down) throw down;
    return (await (this.client as ValkeyWithScripts).cachetteCompareAndDelete(key, toBuffer(expected)).catch(refusal)) === 1;
  }

  async clear(prefix: string): Promise<void> {
    const down = this.#down();
    if (down) throw down;
    const pattern = prefixPattern(prefix);
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH);
      if (keys.length > 0) await this.client.unlink(keys);
      cursor = next;
    } while (cursor !== '0');
  }

  /** One script: the entries and each tag's generation and fence (adapters/valkey/generations.ts). */
  async readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    const down = this.#down();
    if (down) throw down;
    return readWithGenerations(this.client, read).catch(refusal);
  }

  /** One script: bumps, holds or releases, atomically per tag. */
  async writeGenerations(write: GenerationWrite): Promise<void> {
    const down = this.#down();
    if (down) throw down;
    await writeGenerations(this.client, write).catch(refusal);
  }

  /** CLIENT TRACKING on this connection, invalidations on a second one (adapters/valkey/tracking.ts). */
  track(listener: InvalidationListener): Tracking {
    this.#tracking ??= new ValkeyTracking(this.client);
    return this.#tracking.add(listener);
  }

  async close(): Promise<void> {
    await this.#tracking?.stop();
    if (!this.#owned) return; // A client passed in belongs to its owner.
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  /**
   * Fails at once while the connection is known to be down, instead of letting the command
   * wait in iovalkey's offline queue for a reconnect attempt: a dead store is a miss in
   * microseconds. Before the first connection is up (and no error was seen), commands queue.
   */
  #down(): StoreUnavailableError | undefined {
    if (this.#unavailable === undefined || this.client.status === 'ready') return undefined;
    return new StoreUnavailableError(`valkey ${this.address}: ${this.#unavailable}`);
  }

  /** Runs `issue` with the socket corked, so that every command it sends leaves in one write. */
  #corked<T>(issue: () => T): T {
    const stream = this.client.status === 'ready' ? this.client.stream : undefined;
    stream?.cork();
    try {
      return issue();
    } finally {
      stream?.uncork();
    }
  }

  /**
   * Sends the run of ops starting at `start` as one command (a run of reads as one MGET, a run
   * of plain writes as one MSET), or one op alone; returns where the next run starts.
   */
  #issue(ops: readonly StoreOp[], start: number, results: StoreOpResult[], pending: Array<Promise<void>>): number {
    const op = ops[start]!;
    const fail = (from: number, to: number) => (error: unknown) => {
      const failure = toRefusal(error);
      for (let i = from; i < to; i++) results[i] = failure;
    };
    if (op.kind === 'get' || op.kind === 'getMany') {
      let end = start + 1;
      while (end < ops.length && (ops[end]!.kind === 'get' || ops[end]!.kind === 'getMany')) end++;
      if (end === start + 1 && op.kind === 'get') {
        pending.push(this.client.getBuffer(op.key).then((value) => void (results[start] = value ?? undefined), fail(start, end)));
        return end;
      }
      const keys: string[] = [];
      for (let i = start; i < end; i++) {
        const read = ops[i]!;
        if (read.kind === 'get') keys.push(read.key);
        else if (read.kind === 'getMany') for (const k of read.keys) keys.push(k);
      }
      pending.push(
        this.client.mgetBuffer(keys).then((values) => {
          let at = 0;
          for (let i = start; i < end; i++) {
            const read = ops[i]!;
            if (read.kind === 'getMany') {
              const list = new Array<Uint8Array | undefined>(read.keys.length);
              for (let j = 0; j < list.length; j++) list[j] = values[at++] ?? undefined;
              results[i] = list;
            } else results[i] = values[at++] ?? undefined;
          }
        }, fail(start, end)),
      );
      return end;
    }
    if (op.kind === 'set' || op.kind === 'setMany') {
      let end = start + 1;
      while (end < ops.length && (ops[end]!.kind === 'set' || ops[end]!.kind === 'setMany')) end++;
      const entries: StoreEntry[] = [];
      for (let i = start; i < end; i++) {
        const write = ops[i]!;
        if (write.kind === 'set') entries.push(write);
        else if (write.kind === 'setMany') for (const e of write.entries) entries.push(e);
      }
      // Each op of the run waits for the commands that carry its entries; a failed command fails the run.
      pending.push(
        Promise.all(this.#writeEntries(entries)).then(() => {
          for (let i = start; i < end; i++) results[i] = undefined;
        }, fail(start, end)),
      );
      return end;
    }
    let end = start + 1;
    while (end < ops.length && ops[end]!.kind === op.kind) end++;
    if (end - start >= SCRIPT_RUN && this.#scripts) {
      if (op.kind === 'incr') this.#incrRun(ops, start, end, results, pending, fail(start, end));
      else this.#deleteRun(ops, start, end, results, pending, fail(start, end));
      return end;
    }
    const done = (value: number) => void (results[start] = value);
    if (op.kind === 'delete') pending.push(op.keys.length === 0 ? Promise.resolve(done(0)) : this.client.del(op.keys as string[]).then(done, fail(start, start + 1)));
    else if (op.kind === 'incr') pending.push(this.#incr(op.key, op.by, op.ttlMs).then(done, fail(start, start + 1)));
    return start + 1;
  }

  /** A run of increments as one script: one reply per counter, an error only for its own op. */
  #incrRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[], pending: Array<Promise<void>>, fail: (error: unknown) => void): void {
    const keys: string[] = [];
    const args: number[] = [];
    for (let i = start; i < end; i++) {
      const op = ops[i] as Extract<StoreOp, { kind: 'incr' }>;
      keys.push(op.key);
      args.push(op.by, op.ttlMs === undefined ? 0 : positiveMs(op.ttlMs));
    }
    pending.push(
      this.#script((this.client as ValkeyWithScripts).cachetteIncrMany(keys.length, ...keys, ...args)).then((replies) => {
        for (let i = start; i < end; i++) {
          const reply = replies[i - start];
          results[i] = reply instanceof Error ? toRefusal(reply) : Number(reply);
        }
      }, fail),
    );
  }

  /** A run of deletes as one script that says, key by key, whether each existed: each op gets its own count. */
  #deleteRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[], pending: Array<Promise<void>>, fail: (error: unknown) => void): void {
    const keys: string[] = [];
    for (let i = start; i < end; i++) for (const key of (ops[i] as Extract<StoreOp, { kind: 'delete' }>).keys) keys.push(key);
    pending.push(
      this.#script((this.client as ValkeyWithScripts).cachetteDeleteEach(keys.length, ...keys)).then((existed) => {
        let at = 0;
        for (let i = start; i < end; i++) {
          let count = 0;
          for (let k = (ops[i] as Extract<StoreOp, { kind: 'delete' }>).keys.length; k > 0; k--) count += existed[at++]!;
          results[i] = count;
        }
      }, fail),
    );
  }

  /** A script call that switches this store to plain commands when the server refuses scripts. */
  #script<T>(call: Promise<T>): Promise<T> {
    return call.catch((error: unknown) => {
      if (error instanceof Error && NO_SCRIPTS.test(error.message)) this.#scripts = false;
      throw error;
    });
  }

  /**
   * Sends entries in order: runs without a TTL as one MSET each; a run of entries with TTLs as
   * one script when it is long enough, else as SET PX each. Order among them is kept (one
   * connection), so a later write to the same key wins.
   */
  #writeEntries(entries: readonly StoreEntry[]): Array<Promise<unknown>> {
    const sent: Array<Promise<unknown>> = [];
    if (entries.length >= SCRIPT_RUN && this.#scripts && entries.some((e) => e.ttlMs !== undefined)) {
      const args: Array<string | number | Buffer> = [entries.length];
      for (const e of entries) args.push(e.key);
      for (const e of entries) args.push(toBuffer(e.value), e.ttlMs === undefined ? 0 : positiveMs(e.ttlMs));
      sent.push(this.#script((this.client as ValkeyWithScripts).cachetteSetMany(...args)));
      return sent;
    }
    for (let i = 0; i < entries.length; ) {
      const e = entries[i]!;
      if (e.ttlMs !== undefined) {
        sent.push(this.#set(e.key, e.value, e.ttlMs));
        i++;
        continue;
      }
      let end = i + 1;
      while (end < entries.length && entries[end]!.ttlMs === undefined) end++;
      if (end === i + 1) {
        sent.push(this.client.set(e.key, toBuffer(e.value)));
      } else {
        const args: Array<string | Buffer> = [];
        for (let j = i; j < end; j++) args.push(entries[j]!.key, toBuffer(entries[j]!.value));
        sent.push(this.client.mset(args));
      }
      i = end;
    }
    return sent;
  }

  #set(key: string, value: Uint8Array, ttlMs: number | undefined): Promise<unknown> {
    return ttlMs === undefined ? this.client.set(key, toBuffer(value)) : this.client.set(key, toBuffer(value), 'PX', positiveMs(ttlMs));
  }

  #incr(key: string, by: number, ttlMs: number | undefined): Promise<number> {
    // With a TTL: one script that creates the counter with its TTL only when it is new, then
    // increments it, atomically and in one command.
    return ttlMs === undefined ? this.client.incrby(key, by) : (this.client as ValkeyWithScripts).cachetteIncrPx(key, by, positiveMs(ttlMs));
  }
}

/** Creates a Valkey/Redis store from a URL or an existing iovalkey client. */
export function valkeyStore(options: ValkeyStoreOptions | string): ValkeyStore {
  return new ValkeyStore(options);
}

function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`valkeyStore: "${url}" is not a URL; use redis://host:port (or rediss://, valkey://, valkeys://)`);
  }
  if (!URL_PROTOCOLS.includes(parsed.protocol)) {
    throw new TypeError(`valkeyStore: "${parsed.protocol}" URLs are not Valkey/Redis URLs; use redis://host:port (or rediss://, valkey://, valkeys://)${parsed.protocol.startsWith('http') ? ' — for Redis over HTTP use upstashStore from cachette/adapters/upstash' : ''}`);
  }
  // iovalkey knows redis:// and rediss://; valkey:// and valkeys:// mean the same.
  return parsed.protocol.startsWith('valkey') ? url.replace(/^valkey/, 'redis') : url;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object that is not an iovalkey client' : `${typeof value} ${JSON.stringify(value)}`;
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function orUndefined(value: Buffer | null): Uint8Array | undefined {
  return value ?? undefined;
}

function nothing(): void {}

/**
 * An error reply about the command itself (not the server's state) becomes a
 * StoreRefusedError, which never counts against the store's health.
 */
function toRefusal(error: unknown): Error {
  if (error instanceof Error && error.name === 'ReplyError' && !HEALTH_REPLIES.test(error.message)) return new StoreRefusedError(error.message, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

function refusal(error: unknown): never {
  throw toRefusal(error);
}
