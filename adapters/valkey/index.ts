import type { Cluster, Redis as Valkey, RedisOptions } from 'iovalkey';
import { StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';
import type { GenerationRead, GenerationReadResult, GenerationWrite, InvalidationListener, Store, StoreEntry, StoreOp, StoreOpResult, Tracking } from '../../src/store/types.ts';
import { prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';
import type { ValkeyClusterStoreOptions } from './cluster-options.ts';
import { isCluster, ValkeyClusterStore } from './cluster-store.ts';
import { COMPRESSION_THRESHOLD } from './compression.ts';
import { nothing, orUndefined, toBuffer, toRefusal } from './replies.ts';
import {
  addCommand,
  defineStoreScripts,
  incrCommand,
  setCommand,
  incrManyArgs,
  incrReply,
  ScriptSupport,
  SCRIPT_RUN,
  setManyArgs,
  wantsSetScript,
  type IncrOp,
  type ValkeyWithScripts,
} from './scripts.ts';
import { iovalkey } from './iovalkey.ts';
import { checkUrl, describe } from './urls.ts';
import { defineGenerationScripts, readWithGenerations, writeGenerations } from './generations.ts';
import { ValkeyTracking } from './tracking.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';

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
  /** Whether the server takes scripts: once it refused one, runs go as one plain command per op. */
  readonly #scripts = new ScriptSupport();
  /** CLIENT TRACKING for L1 tiers, started by the first {@link track}. */
  #tracking: ValkeyTracking | undefined;

  constructor(options: ValkeyStoreOptions | string) {
    const o = typeof options === 'string' ? { connection: options } : options;
    if (typeof o === 'object' && o !== null) checkKnownOptions(o, ['connection', 'clientOptions', 'onConnectionError'] satisfies ReadonlyArray<keyof ValkeyStoreOptions>, 'valkeyStore()');
    if (typeof o?.connection === 'string') {
      const { Redis } = iovalkey('valkeyStore()');
      this.client = new Redis(checkUrl(o.connection), {
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
      throw new TypeError(`valkeyStore: "connection" must be a redis://, rediss://, valkey:// or valkeys:// URL (e.g. "redis://127.0.0.1:6379") or an iovalkey client, got ${describe(o?.connection)}`);
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
    defineStoreScripts(this.client);
    defineGenerationScripts(this.client);
  }

  get(key: string): Promise<Uint8Array | undefined> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.client.getBuffer(key).then(orUndefined, this.#refusal);
  }

  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.client.mgetBuffer(keys as string[]).then((values) => values.map(orUndefined), this.#refusal);
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return setCommand(this.client, key, value, ttlMs).then(nothing, this.#refusal);
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const down = this.#down();
    if (down) throw down;
    await this.#corked(() => Promise.all(this.#writeEntries(entries))).catch(this.#refusal);
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    const down = this.#down();
    if (down) return Promise.reject(down);
    return this.client.del(keys as string[]).catch(this.#refusal);
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const down = this.#down();
    if (down) return Promise.reject(down);
    return incrCommand(this.client as ValkeyWithScripts, key, by, ttlMs).catch(this.#refusal);
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
    return addCommand(this.client, key, value, ttlMs);
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    const down = this.#down();
    if (down) throw down;
    return (await (this.client as ValkeyWithScripts).cachetteCompareAndDelete(key, toBuffer(expected)).catch(this.#refusal)) === 1;
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
    return readWithGenerations(this.client, read).catch(this.#refusal);
  }

  /** One script: bumps, holds or releases, atomically per tag. */
  async writeGenerations(write: GenerationWrite): Promise<void> {
    const down = this.#down();
    if (down) throw down;
    await writeGenerations(this.client, write).catch(this.#refusal);
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
  #down(cause?: unknown): StoreUnavailableError | undefined {
    if (this.#unavailable === undefined || this.client.status === 'ready') return undefined;
    return new StoreUnavailableError(`valkey ${this.address}: ${this.#unavailable}`, { cause });
  }

  /**
   * A failed command as the store reports it: a command queued before the connection was known
   * to be down fails with iovalkey's MaxRetriesPerRequestError, which names neither the server
   * nor why; by then the connection's own error is known, and says both.
   */
  #failure(error: unknown): Error {
    if (error instanceof Error && error.name === 'MaxRetriesPerRequestError') return this.#down(error) ?? error;
    return toRefusal(error);
  }

  readonly #refusal = (error: unknown): never => {
    throw this.#failure(error);
  };

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
      const failure = this.#failure(error);
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
        this.client.mgetBuffer(keys).then(
          (values) => {
            let at = 0;
            for (let i = start; i < end; i++) {
              const read = ops[i]!;
              if (read.kind === 'getMany') {
                const list = new Array<Uint8Array | undefined>(read.keys.length);
                for (let j = 0; j < list.length; j++) list[j] = values[at++] ?? undefined;
                results[i] = list;
              } else results[i] = values[at++] ?? undefined;
            }
          },
          fail(start, end),
        ),
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
        Promise.all(this.#writeEntries(entries)).then(
          () => {
            for (let i = start; i < end; i++) results[i] = undefined;
          },
          fail(start, end),
        ),
      );
      return end;
    }
    let end = start + 1;
    while (end < ops.length && ops[end]!.kind === op.kind) end++;
    if (end - start >= SCRIPT_RUN && this.#scripts.accepted) {
      if (op.kind === 'incr') this.#incrRun(ops, start, end, results, pending, fail(start, end));
      else this.#deleteRun(ops, start, end, results, pending, fail(start, end));
      return end;
    }
    const done = (value: number) => void (results[start] = value);
    if (op.kind === 'delete') pending.push(op.keys.length === 0 ? Promise.resolve(done(0)) : this.client.del(op.keys as string[]).then(done, fail(start, start + 1)));
    else if (op.kind === 'incr') pending.push(incrCommand(this.client as ValkeyWithScripts, op.key, op.by, op.ttlMs).then(done, fail(start, start + 1)));
    return start + 1;
  }

  /** A run of increments as one script: one reply per counter, an error only for its own op. */
  #incrRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[], pending: Array<Promise<void>>, fail: (error: unknown) => void): void {
    const incrs = ops.slice(start, end) as IncrOp[];
    pending.push(
      this.#scripts.watch((this.client as ValkeyWithScripts).cachetteIncrMany(...incrManyArgs(incrs))).then((replies) => {
        for (let i = start; i < end; i++) results[i] = incrReply(replies[i - start]);
      }, fail),
    );
  }

  /** A run of deletes as one script that says, key by key, whether each existed: each op gets its own count. */
  #deleteRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[], pending: Array<Promise<void>>, fail: (error: unknown) => void): void {
    const keys: string[] = [];
    for (let i = start; i < end; i++) for (const key of (ops[i] as Extract<StoreOp, { kind: 'delete' }>).keys) keys.push(key);
    pending.push(
      this.#scripts.watch((this.client as ValkeyWithScripts).cachetteDeleteEach(keys.length, ...keys)).then((existed) => {
        let at = 0;
        for (let i = start; i < end; i++) {
          let count = 0;
          for (let k = (ops[i] as Extract<StoreOp, { kind: 'delete' }>).keys.length; k > 0; k--) count += existed[at++]!;
          results[i] = count;
        }
      }, fail),
    );
  }

  /**
   * Sends entries in order: runs without a TTL as one MSET each; a run of entries with TTLs as
   * one script when it is long enough, else as SET PX each. Order among them is kept (one
   * connection), so a later write to the same key wins.
   */
  #writeEntries(entries: readonly StoreEntry[]): Array<Promise<unknown>> {
    const sent: Array<Promise<unknown>> = [];
    if (wantsSetScript(entries, this.#scripts)) {
      sent.push(this.#scripts.watch((this.client as ValkeyWithScripts).cachetteSetMany(...setManyArgs(entries))));
      return sent;
    }
    for (let i = 0; i < entries.length; ) {
      const e = entries[i]!;
      if (e.ttlMs !== undefined) {
        sent.push(setCommand(this.client, e.key, e.value, e.ttlMs));
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
}

/** Options of {@link valkeyStore} for an iovalkey `Cluster` passed as the connection. */
export type ValkeyClusterConnectionOptions = Omit<ValkeyStoreOptions, 'connection' | 'clientOptions'> & { connection: Cluster };

/**
 * Creates a Valkey/Redis store: on one server from a URL or an iovalkey client, or on a
 * Valkey/Redis Cluster from `{ cluster: [nodes…] }` or an iovalkey `Cluster` (as `cluster` or as
 * `connection`), which gives the {@link ValkeyClusterStore}.
 */
export function valkeyStore(options: ValkeyClusterStoreOptions | ValkeyClusterConnectionOptions): ValkeyClusterStore;
export function valkeyStore(options: ValkeyStoreOptions | string): ValkeyStore;
export function valkeyStore(options: ValkeyStoreOptions | ValkeyClusterStoreOptions | ValkeyClusterConnectionOptions | string): ValkeyStore | ValkeyClusterStore {
  if (typeof options === 'object' && options !== null) {
    if ('cluster' in options) {
      if ('connection' in options) throw new TypeError('valkeyStore: give "connection" (one server) or "cluster" (a cluster), not both');
      return new ValkeyClusterStore(options);
    }
    // A Cluster passed where one server was expected would refuse every multi-slot MGET: it gets the cluster store.
    if (isCluster(options.connection)) return new ValkeyClusterStore({ cluster: options.connection, ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}) });
  }
  return new ValkeyStore(options as ValkeyStoreOptions | string);
}

export { ValkeyClusterStore } from './cluster-store.ts';
export type { ClusterStartupNode, ValkeyClusterStoreOptions } from './cluster-options.ts';
export { colocatedKey, hashSlot, hashTagOf, SLOT_COUNT } from './hash-slot.ts';
