import type { Redis } from '@upstash/redis/cloudflare';
import { importPeer } from '../../src/util/optional-peer.ts';
import type { GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';
import { COMPARE_AND_DELETE_LUA, INCR_WITH_TTL_LUA, positiveMs, prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';
import { readGenerationsCommand, readGenerationsReply, writeGenerationsCommand } from './generations.ts';
import { restSender, sdkSender, type RestCommand } from './commands.ts';
import { RestClient } from './rest-client.ts';
import { resultOf, TickPipeline, type RestReply } from './tick-pipeline.ts';
import { decodeValue, encodeValue } from './value-encoding.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';
import { redactUrl } from '../../src/util/redact-url.ts';

/** How the store reaches Upstash when it builds its own client. */
export interface UpstashConnectionOptions {
  /** REST endpoint: `UPSTASH_REDIS_REST_URL`, or a local bridge's `url` (`cachette bridge`, products/bridge). */
  url: string;
  /** REST token: `UPSTASH_REDIS_REST_TOKEN`, or the bridge's `token`. */
  token: string;
  /**
   * Sends every command the store issues in one tick as one `/pipeline` request, reads and
   * writes together, run in the order they were issued; false sends each call on a request of
   * its own, as cachette/workers does (the requests a Worker serves at once must not share a
   * fetch). Default true: it pays when many calls are in flight and costs nothing when they are not.
   */
  autoPipelining?: boolean;
  /**
   * Retries of a request that failed on the network (not of a command error). Default 1: enough
   * to survive a keep-alive connection the server closed, short enough that a dead store is a
   * quick miss — the SDK's own default (5, exponential) stalls a call for ~10 s.
   */
  retries?: number;
  /** Aborts every request of this store, e.g. on shutdown. */
  signal?: AbortSignal;
}

/** Options of {@link upstashStore}: a URL and token, or an `@upstash/redis` client you own. */
export type UpstashStoreOptions = UpstashConnectionOptions | Redis;

const RETRY_BACKOFF_MS = 20;
const UPSTASH_OPTIONS: ReadonlyArray<keyof UpstashConnectionOptions> = ['url', 'token', 'autoPipelining', 'retries', 'signal'];

// @upstash/redis is an optional peer: without it, importing this entry fails with an error that
// names the package, not the runtime's bare "Cannot find package". An import() (not a require)
// because this module runs on the edge too, where a bundler must see the import; top-level, so
// that upstashStore() stays synchronous. The Cloudflare build of the SDK is the runtime-neutral
// one: plain fetch, no `cache` request option (older workerd rejects it), no process.env.
const { Redis: UpstashRedis } = await importPeer('cachette/adapters/upstash', '@upstash/redis', () => import('@upstash/redis/cloudflare'));

/**
 * A store on Redis over HTTP: the Upstash REST protocol over `fetch` (rest-client.ts, or the
 * pipeline of an @upstash/redis client passed in), so it runs wherever `fetch` does (Workers,
 * Deno, Bun, Node, Vercel Edge) and never opens a socket itself. Values travel as text (see value-encoding.ts): counters as plain decimals,
 * everything else as `~` + base64. Every command of a tick — the engine's folded calls, tagged
 * reads, leases — leaves in one `/pipeline` request, in the order it was issued (tick-pipeline.ts);
 * `clear` is one request per SCAN batch.
 */
export class UpstashStore implements Store {
  readonly name = 'upstash';
  /**
   * Every value crosses the network as base64 text inside JSON, and bytes are billed: from
   * 1 KiB on, compression saves more than it costs.
   */
  readonly compressionThreshold = 1024;
  /**
   * Calls of one tick leave in one request and run in issue order, so the engine may send a
   * tick's reads, writes and tagged reads together. Not when each call has a request of its own.
   */
  readonly ordered: boolean;
  /** The REST host, for messages. */
  readonly address: string | undefined;
  readonly #wire: TickPipeline;
  /** How to build an @upstash/redis client on the same endpoint, when asked for one. */
  readonly #connection: UpstashConnectionOptions | undefined;
  #client: Redis | undefined;

  constructor(options: UpstashStoreOptions) {
    if (isClient(options)) {
      // A client built elsewhere may deserialize JSON or base64-decode replies; the value
      // encoding survives both, so it is used as it is, through its own pipeline.
      this.#client = options;
      this.#connection = undefined;
      this.address = undefined;
      this.ordered = true;
      this.#wire = new TickPipeline(sdkSender(options), true);
      return;
    }
    if (typeof options === 'object' && options !== null) checkKnownOptions(options, UPSTASH_OPTIONS, 'upstashStore()');
    const { url, token } = options ?? {};
    if (typeof url !== 'string' || !/^https?:\/\/./.test(url)) throw new TypeError(`upstashStore: "url" must be an http(s) URL, got ${JSON.stringify(typeof url === 'string' ? redactUrl(url) : url)}`);
    if (typeof token !== 'string' || token === '') throw new TypeError('upstashStore: "token" must be a non-empty string');
    this.address = new URL(url).host;
    const retries = options.retries ?? 1;
    if (!Number.isInteger(retries) || retries < 0) throw new RangeError(`upstashStore: "retries" must be a non-negative integer, got ${retries}`);
    this.#connection = options;
    const merge = options.autoPipelining ?? true;
    this.ordered = merge;
    this.#wire = new TickPipeline(restSender(new RestClient({ url, token, retries, backoffMs: RETRY_BACKOFF_MS, signal: options.signal })), merge);
  }

  /**
   * An @upstash/redis client on the store's endpoint, for commands the store contract does not
   * cover: the one passed in, or one built on first use with the store's URL, token, retries and
   * signal (the store's own calls do not go through it).
   */
  get client(): Redis {
    if (this.#client) return this.#client;
    const connection = this.#connection!;
    const retries = connection.retries ?? 1;
    this.#client = new UpstashRedis({
      url: connection.url,
      token: connection.token,
      // Values are the ASCII text the store wrote: no need for base64 on the wire, and the
      // SDK must not JSON-parse them.
      responseEncoding: false,
      automaticDeserialization: false,
      enableTelemetry: false,
      enableAutoPipelining: connection.autoPipelining ?? true,
      retry: retries === 0 ? false : { retries, backoff: () => RETRY_BACKOFF_MS },
      signal: connection.signal,
    });
    return this.#client;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#wire.one({ name: 'get', key }).then(decodeValue);
  }

  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.#wire.one({ name: 'mget', keys }).then(decodeList);
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    return this.#wire.one(setCommand({ key, value, ttlMs })).then(nothing);
  }

  setMany(entries: readonly StoreEntry[]): Promise<void> {
    return this.#wire.send(writeCommands(entries), everyResult).then(nothing);
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    return this.#wire.one({ name: 'del', keys }).then(Number);
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    return this.#wire.one(incrCommand(key, by, ttlMs)).then(Number);
  }

  /**
   * The ops of a folded tick as commands of the tick's request: a run of reads as one MGET and
   * a run of writes without TTLs as one MSET (Upstash bills per command), every other op as its
   * own. An op whose command failed gets the error in its slot.
   */
  pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    const commands: RestCommand[] = [];
    const readers: Array<(replies: readonly RestReply[]) => StoreOpResult> = [];
    for (let start = 0; start < ops.length; ) start = planRun(ops, start, commands, readers);
    return this.#wire.send(commands, (replies) => readers.map((read) => read(replies)));
  }

  add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    return this.#wire.one(setCommand({ key, value, ttlMs }, true)).then((reply) => reply === 'OK');
  }

  compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return this.#wire.one({ name: 'script', lua: COMPARE_AND_DELETE_LUA, keys: [key], args: [encodeValue(expected)] }).then((n) => Number(n) === 1);
  }

  /** One command of the tick's request: the shared read script (adapters/upstash/generations.ts). */
  readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    const command = readGenerationsCommand(read);
    return this.#wire.one(command).then((reply) => readGenerationsReply(read, command, reply));
  }

  /** One command of the tick's request: the shared write script. Upstash has no CLIENT TRACKING, so no `track`. */
  writeGenerations(write: GenerationWrite): Promise<void> {
    if (write.tags.length === 0) return Promise.resolve();
    return this.#wire.one(writeGenerationsCommand(write)).then(nothing);
  }

  /** One request per SCAN step, DEL what it finds, until the cursor comes back to 0. */
  async clear(prefix: string): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.keys(prefix, cursor);
      if (page.keys.length > 0) await this.#wire.one({ name: 'del', keys: [...page.keys] });
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /** One SCAN MATCH step over the prefix (one request); the cursor is the server's. */
  async keys(prefix: string, cursor = '0'): Promise<KeyPage> {
    if (!/^\d{1,20}$/.test(cursor)) throw new TypeError(`upstash store: keys() was given a cursor it never returned (${cursor.slice(0, 40)})`);
    const [next, keys] = (await this.#wire.one({ name: 'scan', cursor, match: prefixPattern(prefix), count: SCAN_BATCH })) as [unknown, unknown[]];
    // String(): a client that deserializes JSON turns a numeric-looking cursor or key into a number.
    const found = keys.map(String);
    const following = String(next);
    return following === '0' ? { keys: found } : { keys: found, cursor: following };
  }

  /**
   * Nothing to release: the store holds no socket or timer of its own (the runtime's fetch
   * owns its connection pool), and a client passed in belongs to its owner. Every later call
   * rejects with a StoreClosedError.
   */
  async close(): Promise<void> {
    this.#wire.close(this.address === undefined ? 'upstash' : `upstash ${this.address}`);
  }
}

const nothing = (): void => undefined;
const decodeList = (reply: unknown): Array<Uint8Array | undefined> => (reply as unknown[]).map(decodeValue);
/** Every reply's result, the first error thrown. */
const everyResult = (replies: readonly RestReply[]): unknown[] => replies.map(resultOf);

function setCommand(entry: StoreEntry, onlyIfAbsent = false): RestCommand {
  const value = encodeValue(entry.value);
  const px = entry.ttlMs === undefined ? undefined : positiveMs(entry.ttlMs);
  return { name: 'set', key: entry.key, value, ...(px === undefined ? {} : { px }), ...(onlyIfAbsent ? { nx: true } : {}) };
}

/**
 * Entries as commands, in their order: each run of entries without a TTL as one MSET (one SET
 * when alone), each entry with a TTL as its own SET PX.
 */
function writeCommands(entries: readonly StoreEntry[]): RestCommand[] {
  const commands: RestCommand[] = [];
  let plain: StoreEntry[] = [];
  const flush = () => {
    if (plain.length === 1) commands.push(setCommand(plain[0]!));
    else if (plain.length > 1) commands.push({ name: 'mset', entries: plain.map((entry) => [entry.key, encodeValue(entry.value)] as const) });
    plain = [];
  };
  for (const entry of entries) {
    if (entry.ttlMs === undefined) plain.push(entry);
    else {
      flush();
      commands.push(setCommand(entry));
    }
  }
  flush();
  return commands;
}

function incrCommand(key: string, by: number, ttlMs: number | undefined): RestCommand {
  // With a TTL, one script creates the counter with it only when it is new, then increments it.
  if (ttlMs === undefined) return { name: 'incrby', key, by };
  return { name: 'script', lua: INCR_WITH_TTL_LUA, keys: [key], args: [String(by), String(positiveMs(ttlMs))] };
}

/** The error of the first failed reply in `replies`, or undefined. */
function failureOf(replies: readonly RestReply[]): Error | undefined {
  for (const reply of replies) if (!reply.ok) return reply.error;
  return undefined;
}

/**
 * Plans the run of ops starting at `start` (reads together, plain writes together, any other op
 * alone): pushes its commands and one reader per op; returns where the next run starts.
 */
function planRun(ops: readonly StoreOp[], start: number, commands: RestCommand[], readers: Array<(replies: readonly RestReply[]) => StoreOpResult>): number {
  const from = commands.length;
  const op = ops[start]!;
  const isRead = (o: StoreOp) => o.kind === 'get' || o.kind === 'getMany';
  const isWrite = (o: StoreOp) => o.kind === 'set' || o.kind === 'setMany';
  let end = start + 1;
  if (isRead(op)) {
    while (end < ops.length && isRead(ops[end]!)) end++;
    const run = ops.slice(start, end) as Array<Extract<StoreOp, { kind: 'get' | 'getMany' }>>;
    const keys = run.flatMap((op) => (op.kind === 'get' ? [op.key] : op.keys));
    if (keys.length > 0) commands.push({ name: 'mget', keys });
    let at = 0;
    for (const op of run) {
      const offset = at;
      const count = op.kind === 'get' ? 1 : op.keys.length;
      at += count;
      readers.push((replies) => {
        if (count === 0) return [];
        const reply = replies[from]!;
        if (!reply.ok) return reply.error;
        const values = (reply.result as unknown[]).slice(offset, offset + count).map(decodeValue);
        return op.kind === 'get' ? values[0] : values;
      });
    }
    return end;
  }
  if (isWrite(op)) {
    while (end < ops.length && isWrite(ops[end]!)) end++;
    const entries = ops.slice(start, end).flatMap((op) => (op.kind === 'set' ? [op] : op.kind === 'setMany' ? op.entries : []));
    const written = writeCommands(entries);
    commands.push(...written);
    // One failed command fails every write of the run: which entry it carried is not tracked.
    for (let i = start; i < end; i++) readers.push((replies) => failureOf(replies.slice(from, from + written.length)));
    return end;
  }
  if (op.kind === 'delete') {
    if (op.keys.length === 0) readers.push(() => 0);
    else {
      commands.push({ name: 'del', keys: op.keys });
      readers.push((replies) => numberOrError(replies[from]!));
    }
  } else if (op.kind === 'incr') {
    commands.push(incrCommand(op.key, op.by, op.ttlMs));
    readers.push((replies) => numberOrError(replies[from]!));
  }
  return end;
}

const numberOrError = (reply: RestReply): number | Error => (reply.ok ? Number(reply.result) : reply.error);

/** Creates a store on Upstash (or any Upstash-compatible REST endpoint) from a URL and token or a client. */
export function upstashStore(options: UpstashStoreOptions): UpstashStore {
  return new UpstashStore(options);
}

function isClient(options: UpstashStoreOptions): options is Redis {
  return typeof (options as Partial<Redis> | undefined)?.pipeline === 'function';
}
