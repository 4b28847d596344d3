import { StoreClosedError, StoreRefusedError } from '../../src/store/errors.ts';
import { parseCounter } from '../../src/store/layout/counter.ts';
import { FIXED_BYTES, staledEnvelope } from '../../src/store/layout/envelope.ts';
import { PubSubBus } from '../../src/store/bus/pubsub-bus.ts';
import type { Coherence, CoherenceListener, CoherenceOptions, ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry } from '../../src/store/types.ts';
import { readGenerationsIn } from '../shared/generation-cells.ts';
import { pgConnection, type Cell, type PostgresConnection, type SqlConnection } from './connection.ts';
import { type ListenClient, PostgresBusTransport } from './bus.ts';
import { listenClients, openUrl } from './drivers.ts';
import { storeFailure } from './errors.ts';
import { resolveOptions, type PostgresStoreOptions, type ResolvedPostgresOptions } from './options.ts';
import { prefixEnd, ROWS_PER_STATEMENT, Statements, TABLE_MARK } from './statements.ts';
import { connectionAddress, urlAddress } from './urls.ts';

/**
 * The longest key, in UTF-8 bytes: the primary key's B-tree takes entries up to about a third
 * of a page (2,704 bytes on 8 kB pages), and a longer key would fail inside the server with a
 * less telling error. Refused before it is sent.
 */
export const MAX_KEY_BYTES = 2048;
/** Rows a `clear` step or a `keys` page reads at most. */
const PAGE_ROWS = 1000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The shared store on one PostgreSQL table (statements.ts), for a fleet that runs PostgreSQL
 * and no Redis. Every call is one statement on a connection of the pool (none holds a
 * transaction open), timed by the server's clock; tag generations and fences are written by
 * one function of the table under an advisory lock per tag. The table is created on the first
 * call (and each call after a failed attempt tries again); failures reject with a StoreError
 * naming `postgres host:port/database`, which the cache reports as a miss or a failed write.
 */
export class PostgresStore implements Store {
  readonly name = 'postgres';
  /** `host:port/database`, never a password. */
  readonly address: string;
  /** The table, as given (unquoted). */
  readonly table: string;
  /** Whether the store creates its table UNLOGGED. */
  readonly unlogged: boolean;
  readonly #statements: Statements;
  readonly #connection: SqlConnection;
  readonly #label: string;
  readonly #secret: string | undefined;
  readonly #maxValueBytes: number;
  readonly #sweepBatch: number;
  readonly #sweepBatches: number;
  readonly #sweeper: ReturnType<typeof setInterval> | undefined;
  readonly #options: ResolvedPostgresOptions;
  /** The coherence bus of coherent L1 tiers (adapters/postgres/bus.ts), started by the first {@link coherence}. */
  #bus: PubSubBus | undefined;
  /**
   * `LISTEN`/`NOTIFY` with leased holders, on a Client of its own beside the pool
   * (adapters/postgres/bus.ts). Absent on a store given a single Client, which carries the
   * application's own statements and cannot listen for the bus as well: the capability is not
   * offered, so the coherent L1 is refused where the cache is made.
   */
  readonly coherence?: (listener: CoherenceListener, options: CoherenceOptions) => Coherence;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(input: PostgresStoreOptions | PostgresConnection | string) {
    const o = resolveOptions(input);
    this.#options = o;
    this.table = o.table;
    this.unlogged = o.unlogged;
    this.#statements = new Statements(o.schema, o.table);
    this.#maxValueBytes = o.maxValueBytes;
    this.#sweepBatch = o.sweepBatch;
    this.#sweepBatches = o.sweepBatches;
    if (typeof o.connection === 'string') {
      this.address = urlAddress(o.connection);
      this.#secret = new URL(o.connection).password || undefined;
      this.#connection = openUrl(o.connection, o);
    } else {
      this.address = connectionAddress(o.connection);
      this.#secret = undefined;
      this.#connection = pgConnection(o.connection);
    }
    this.#label = `postgres ${this.address}`;
    const open = listenClients(o.connection, o);
    if (open !== undefined) this.coherence = (listener, options) => this.#coherence(open, listener, options);
    if (o.sweepIntervalMs > 0) {
      // A failed sweep is retried at the next interval; the calls that fail meanwhile are reported by the cache.
      this.#sweeper = setInterval(() => void this.sweep().catch(() => undefined), o.sweepIntervalMs);
      (this.#sweeper as { unref?(): void }).unref?.();
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const rows = await this.#run(this.#statements.get, [this.#key(key)]);
    return rows.length === 0 ? undefined : (rows[0]![0] as Uint8Array);
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    const values = new Array<Uint8Array | undefined>(keys.length).fill(undefined);
    if (keys.length === 0) return this.#open().then(() => values);
    for (const key of keys) this.#key(key);
    for (const row of await this.#run(this.#statements.getMany, [keys])) values[(row[0] as number) - 1] = row[1] as Uint8Array;
    return values;
  }

  async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    await this.#run(this.#statements.set, [this.#key(key), this.#value(value), ttl(ttlMs)]);
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    // One row per key, the last entry of a key winning (an upsert may not touch a row twice).
    const last = new Map<string, StoreEntry>();
    for (const entry of entries) {
      this.#key(entry.key);
      this.#value(entry.value);
      last.delete(entry.key);
      last.set(entry.key, entry);
    }
    const rows = [...last.values()];
    if (rows.length === 0) return this.#open();
    for (let from = 0; from < rows.length; from += ROWS_PER_STATEMENT) {
      const slice = rows.slice(from, from + ROWS_PER_STATEMENT);
      await this.#run(
        this.#statements.setMany(slice.length),
        slice.flatMap((entry) => [entry.key, entry.value, ttl(entry.ttlMs)]),
        false,
      );
    }
  }

  async delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return this.#open().then(() => 0);
    for (const key of keys) this.#key(key);
    return (await this.#run(this.#statements.delete, [[...new Set(keys)]]))[0]![0] as number;
  }

  async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    if (!Number.isSafeInteger(by)) throw new StoreRefusedError(`${this.#label}: incr by ${by}: not a safe integer`);
    const rows = await this.#run(this.#statements.incr, [this.#key(key), String(by), ttl(ttlMs)]);
    return parseCounter(rows[0]![0] as Uint8Array, key);
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    return (await this.#run(this.#statements.add, [this.#key(key), this.#value(value), ttl(ttlMs)])).length > 0;
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return (await this.#run(this.#statements.compareAndDelete, [this.#key(key), expected])).length > 0;
  }

  /** Removes the keys under `prefix` in batches of a bounded number of rows, one statement each. */
  async clear(prefix: string): Promise<void> {
    const end = prefixEnd(prefix) ?? null;
    for (;;) {
      const removed = (await this.#run(this.#statements.clearRange, [prefix, end, PAGE_ROWS]))[0]![0] as number;
      if (removed < PAGE_ROWS) return;
    }
  }

  async keys(prefix: string, cursor?: string): Promise<KeyPage> {
    const rows = await this.#run(this.#statements.keys, [prefix, prefixEnd(prefix) ?? null, cursor ?? null, PAGE_ROWS]);
    const keys = rows.map((row) => row[0] as string);
    return keys.length < PAGE_ROWS ? { keys } : { keys, cursor: keys[keys.length - 1]! };
  }

  async readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    for (const key of read.keys) this.#key(key);
    const tagKeys = read.tags.flatMap((tag) => [tag.generation, tag.fence, tag.soft]);
    const keys = [...read.keys, ...tagKeys];
    const prefixes = keys.map((_, i) => hex(read.knownPrefixes?.[i]));
    let found = await this.#readCells(keys, prefixes);
    const missing = read.tags.filter((tag) => !found.cells.has(tag.generation)).map((tag) => tag.generation);
    if (missing.length > 0) {
      // Created at the epoch unless another process created them meanwhile, then read again in one snapshot.
      await this.#run(this.#statements.createGenerations, [missing, String(read.epoch)]);
      found = await this.#readCells(keys, prefixes);
    }
    const values = read.keys.map((_, i) => found.values[i]);
    // A counter still missing (a clear ran in between) is answered at the epoch without being
    // stored: the next read creates one at its own epoch, which no entry recorded.
    const cells = { read: (key: string) => found.cells.get(key), write: (key: string, value: Uint8Array) => void found.cells.set(key, value), remove: () => undefined };
    const { tags } = readGenerationsIn(cells, { keys: [], tags: read.tags, epoch: read.epoch }, found.now);
    return { values, tags };
  }

  async writeGenerations(write: GenerationWrite): Promise<void> {
    if (write.tags.length === 0) return this.#open();
    await this.#run(this.#statements.writeGenerations, [
      write.action,
      write.tags.map((tag) => tag.generation),
      write.tags.map((tag) => tag.fence),
      write.tags.map((tag) => tag.soft),
      String(write.epoch),
      write.token ?? '',
      String(Math.max(1, Math.ceil(write.ttlMs ?? 1))),
      String(Math.floor(write.now ?? 0)),
    ]);
  }

  /**
   * Reads each entry's header, stales it (the envelope's one definition), and writes the new
   * header over the value's first bytes only while they are still the ones read: a write in
   * between is newer than the expiry, and stays. Two round trips, atomic per key.
   */
  async expireEntries(request: ExpireRequest): Promise<number> {
    const keys = [...new Set(request.keys)];
    for (const key of keys) this.#key(key);
    if (keys.length === 0) return this.#open().then(() => 0);
    const rows = await this.#run(this.#statements.readHeaders, [keys, FIXED_BYTES]);
    const writes: unknown[][] = [];
    for (const row of rows) {
      const header = row[1] as Uint8Array;
      const staled = staledEnvelope(header, request.now);
      if (staled !== undefined) writes.push([keys[(row[0] as number) - 1], header, staled.bytes, ttl(staled.ttlMs)]);
    }
    let marked = 0;
    for (let from = 0; from < writes.length; from += ROWS_PER_STATEMENT) {
      const slice = writes.slice(from, from + ROWS_PER_STATEMENT);
      marked += (await this.#run(this.#statements.rewriteHeaders(slice.length), slice.flat(), false))[0]![0] as number;
    }
    return marked;
  }

  /**
   * Removes expired rows: at most `sweepBatches` statements of at most `sweepBatch` rows each,
   * skipping rows another sweeper holds. Resolves how many it removed. Runs on its own every
   * `sweepIntervalMs`; expired rows are never served meanwhile, they only take space.
   */
  async sweep(): Promise<number> {
    let removed = 0;
    for (let batch = 0; batch < this.#sweepBatches; batch++) {
      const count = (await this.#run(this.#statements.sweep, [this.#sweepBatch]))[0]![0] as number;
      removed += count;
      if (count < this.#sweepBatch) break;
    }
    return removed;
  }

  #coherence(open: () => ListenClient, listener: CoherenceListener, options: CoherenceOptions): Coherence {
    if (this.#closed) throw new StoreClosedError(this.#label);
    this.#bus ??= new PubSubBus(
      new PostgresBusTransport({
        open,
        run: (text, params) => this.#run(text, params),
        schema: this.#options.schema,
        table: this.table,
      }),
    );
    return this.#bus.register(listener, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    // The bus first: it deletes its registrations on its own connection.
    await this.#bus?.close();
    await this.#connection.close();
  }

  /** Rejects once closed; creates the table on the first call. */
  #open(): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreClosedError(this.#label));
    this.#ready ??= this.#setup().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #setup(): Promise<void> {
    await this.#query(this.#statements.setup(this.unlogged), [], false);
    const rows = await this.#query(this.#statements.describeTable, [this.#statements.table], false);
    const mark = rows[0] && decoder.decode(rows[0][0] as Uint8Array);
    if (mark !== TABLE_MARK)
      throw new StoreRefusedError(`${this.#label}: the table ${this.#statements.table} exists and is not a cachette store's (its comment is not "${TABLE_MARK}"); name another table`);
    const unlogged = decoder.decode(rows[0]![1] as Uint8Array) === 'u';
    if (unlogged !== this.unlogged)
      throw new StoreRefusedError(
        `${this.#label}: the table ${this.#statements.table} is ${unlogged ? 'UNLOGGED' : 'logged'}, and the store was asked for a ${this.unlogged ? 'UNLOGGED' : 'logged'} one (option "unlogged")`,
      );
  }

  async #run(text: string, params: readonly unknown[], prepared = true): Promise<Cell[][]> {
    await this.#open();
    return this.#query(text, params, prepared);
  }

  async #query(text: string, params: readonly unknown[], prepared: boolean): Promise<Cell[][]> {
    try {
      return await this.#connection.query(text, params, prepared);
    } catch (error) {
      throw this.#closed ? new StoreClosedError(this.#label) : storeFailure(error, this.#label, this.#secret);
    }
  }

  async #readCells(keys: readonly string[], prefixes: readonly string[]): Promise<{ values: Array<Uint8Array | 'unchanged' | undefined>; cells: Map<string, Uint8Array>; now: number }> {
    const values = new Array<Uint8Array | 'unchanged' | undefined>(keys.length).fill(undefined);
    let now = 0;
    for (const row of await this.#run(this.#statements.readGenerations, [keys, prefixes])) {
      const i = row[0] as number;
      const cell = row[1] as Uint8Array | null;
      if (i === 0) now = Number(new DataView(cell!.buffer, cell!.byteOffset, 8).getBigInt64(0));
      else values[i - 1] = cell ?? 'unchanged';
    }
    const cells = new Map<string, Uint8Array>();
    values.forEach((value, i) => {
      if (value instanceof Uint8Array) cells.set(keys[i]!, value);
    });
    return { values, cells, now };
  }

  /** `key`, checked against {@link MAX_KEY_BYTES}. */
  #key(key: string): string {
    if (this.#closed) throw new StoreClosedError(this.#label);
    if (key.length * 3 > MAX_KEY_BYTES && encoder.encode(key).length > MAX_KEY_BYTES) {
      throw new StoreRefusedError(`${this.#label}: a key of ${encoder.encode(key).length} bytes is longer than the store's ${MAX_KEY_BYTES} (the primary key's index limit)`);
    }
    return key;
  }

  /** `value`, checked against the store's maxValueBytes. */
  #value(value: Uint8Array): Uint8Array {
    if (value.length > this.#maxValueBytes) throw new StoreRefusedError(`${this.#label}: a value of ${value.length} bytes is larger than the store's maxValueBytes (${this.#maxValueBytes})`);
    return value;
  }
}

/** A TTL as the statements take it: whole ms as text, or NULL for none. */
function ttl(ttlMs: number | undefined): string | null {
  return ttlMs === undefined ? null : String(Math.ceil(ttlMs));
}

/** A known prefix as hex (the statement decodes it), '' for none. */
function hex(bytes: Uint8Array | undefined): string {
  if (bytes === undefined) return '';
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}
