import type { Redis } from '@upstash/redis/cloudflare';
import { importPeer } from '../../src/util/optional-peer.ts';
import { StoreRefusedError } from '../../src/store/errors.ts';
import type { GenerationRead, GenerationReadResult, GenerationWrite, Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';
import { COMPARE_AND_DELETE_LUA, INCR_WITH_TTL_LUA, positiveMs, prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';
import { generationScripts, type GenerationScripts } from './generations.ts';
import { decodeValue, encodeValue } from './value-encoding.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';

/** How the store reaches Upstash when it builds its own client. */
export interface UpstashConnectionOptions {
  /** REST endpoint: `UPSTASH_REDIS_REST_URL`, or a local bridge's `url` (`cachette bridge`, runtimes/node/bridge). */
  url: string;
  /** REST token: `UPSTASH_REDIS_REST_TOKEN`, or the bridge's `token`. */
  token: string;
  /**
   * Lets the SDK merge commands issued in the same tick into one `/pipeline` request.
   * Default true: it pays when many calls are in flight and costs little when they are not
   * (see bench/upstash).
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
 * A store on Redis over HTTP: the Upstash REST protocol through `@upstash/redis`, so it runs
 * wherever `fetch` does (Workers, Deno, Bun, Node, Vercel Edge) and never opens a socket itself.
 * Values travel as text (see value-encoding.ts): counters as plain decimals, everything else
 * as `~` + base64. Every method is one HTTP request, `clear` one per SCAN batch, and a
 * pipeline (a tick of the engine's calls) one `/pipeline` request.
 */
export class UpstashStore implements Store {
  readonly name = 'upstash';
  /**
   * Every value crosses the network as base64 text inside JSON, and bytes are billed: from
   * 1 KiB on, compression saves more than it costs.
   */
  readonly compressionThreshold = 1024;
  /** The REST host, for messages. */
  readonly address: string | undefined;
  /** The underlying client, for commands the store contract does not cover. */
  readonly client: Redis;
  #scripts: GenerationScripts | undefined;

  constructor(options: UpstashStoreOptions) {
    if (isClient(options)) {
      // A client built elsewhere may deserialize JSON or base64-decode replies; the value
      // encoding survives both, so it is used as it is.
      this.client = options;
      this.address = undefined;
      return;
    }
    if (typeof options === 'object' && options !== null) checkKnownOptions(options, UPSTASH_OPTIONS, 'upstashStore()');
    const { url, token } = options ?? {};
    if (typeof url !== 'string' || !/^https?:\/\/./.test(url)) throw new TypeError(`upstashStore: "url" must be an http(s) URL, got ${JSON.stringify(url)}`);
    if (typeof token !== 'string' || token === '') throw new TypeError('upstashStore: "token" must be a non-empty string');
    this.address = new URL(url).host;
    const retries = options.retries ?? 1;
    if (!Number.isInteger(retries) || retries < 0) throw new RangeError(`upstashStore: "retries" must be a non-negative integer, got ${retries}`);
    this.client = new UpstashRedis({
      url,
      token,
      // Replies are the ASCII text the store wrote: no need for base64 on the wire, and the
      // store decodes values itself, so the SDK must not JSON-parse them.
      responseEncoding: false,
      automaticDeserialization: false,
      enableTelemetry: false,
      enableAutoPipelining: options.autoPipelining ?? true,
      retry: retries === 0 ? false : { retries, backoff: () => RETRY_BACKOFF_MS },
      signal: options.signal,
    });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return decodeValue(await this.client.get(key));
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return [];
    const replies = await this.client.mget<unknown[]>([...keys]);
    return replies.map(decodeValue);
  }

  async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    if (ttlMs === undefined) await this.client.set(key, encodeValue(value));
    else await this.client.set(key, encodeValue(value), { px: positiveMs(ttlMs) });
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (entries.every((e) => e.ttlMs === undefined)) {
      await this.client.mset(Object.fromEntries(entries.map((e) => [e.key, encodeValue(e.value)])));
      return;
    }
    // One HTTP request: the pipeline travels as one JSON array.
    const pipeline = this.client.pipeline();
    for (const e of entries) {
      if (e.ttlMs === undefined) pipeline.set(e.key, encodeValue(e.value));
      else pipeline.set(e.key, encodeValue(e.value), { px: positiveMs(e.ttlMs) });
    }
    await pipeline.exec();
  }

  async delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return Number(await this.client.del(...keys));
  }

  async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    if (ttlMs === undefined) return Number(await this.client.incrby(key, by));
    // One script creates the counter with its TTL only when it is new, then increments it.
    return Number(await this.client.eval(INCR_WITH_TTL_LUA, [key], [String(by), String(positiveMs(ttlMs))]));
  }

  async pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    const p = this.client.pipeline();
    // How to read each op's answer out of the replies, which come one per command sent.
    const readers: Array<(replies: Array<{ result: unknown; error?: string }>) => StoreOpResult> = [];
    let at = 0;
    const sent = (count: number, read: (replies: Array<{ result: unknown; error?: string }>) => StoreOpResult) => {
      const from = at;
      at += count;
      readers.push((replies) => {
        const failed = replies.slice(from, from + count).find((r) => r.error !== undefined);
        return failed ? new StoreRefusedError(`upstash: ${failed.error}`) : read(replies.slice(from, from + count));
      });
    };
    for (const op of ops) {
      switch (op.kind) {
        case 'get':
          p.get(op.key);
          sent(1, ([r]) => decodeValue(r!.result));
          break;
        case 'getMany':
          if (op.keys.length === 0) sent(0, () => []);
          else {
            p.mget([...op.keys]);
            sent(1, ([r]) => (r!.result as unknown[]).map(decodeValue));
          }
          break;
        case 'set':
          this.#queueSet(p, op);
          sent(1, () => undefined);
          break;
        case 'setMany':
          for (const e of op.entries) this.#queueSet(p, e);
          sent(op.entries.length, () => undefined);
          break;
        case 'delete':
          if (op.keys.length === 0) sent(0, () => 0);
          else {
            p.del(...op.keys);
            sent(1, ([r]) => Number(r!.result));
          }
          break;
        case 'incr':
          if (op.ttlMs === undefined) p.incrby(op.key, op.by);
          else p.eval(INCR_WITH_TTL_LUA, [op.key], [String(op.by), String(positiveMs(op.ttlMs))]);
          sent(1, ([r]) => Number(r!.result));
          break;
      }
    }
    const replies = at === 0 ? [] : ((await p.exec({ keepErrors: true })) as Array<{ result: unknown; error?: string }>);
    return readers.map((read) => read(replies));
  }

  #queueSet(p: ReturnType<Redis['pipeline']>, e: StoreEntry): void {
    if (e.ttlMs === undefined) p.set(e.key, encodeValue(e.value));
    else p.set(e.key, encodeValue(e.value), { px: positiveMs(e.ttlMs) });
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const reply = ttlMs === undefined ? await this.client.set(key, encodeValue(value), { nx: true }) : await this.client.set(key, encodeValue(value), { px: positiveMs(ttlMs), nx: true });
    return reply === 'OK';
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return Number(await this.client.eval(COMPARE_AND_DELETE_LUA, [key], [encodeValue(expected)])) === 1;
  }

  /** One HTTP request: the shared read script (adapters/upstash/generations.ts). */
  readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    this.#scripts ??= generationScripts(this.client);
    return this.#scripts.read(read);
  }

  /** One HTTP request: the shared write script. Upstash has no CLIENT TRACKING, so no `track`. */
  writeGenerations(write: GenerationWrite): Promise<void> {
    this.#scripts ??= generationScripts(this.client);
    return this.#scripts.write(write);
  }

  async clear(prefix: string): Promise<void> {
    const match = prefixPattern(prefix);
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(cursor, { match, count: SCAN_BATCH });
      // String(): a client that deserializes JSON turns a numeric-looking cursor or key into a number.
      if (keys.length > 0) await this.client.del(...keys.map(String));
      cursor = String(next);
    } while (cursor !== '0');
  }

  /**
   * Nothing to release: the store holds no socket or timer of its own (the runtime's fetch
   * owns its connection pool), and a client passed in belongs to its owner.
   */
  async close(): Promise<void> {}
}

/** Creates a store on Upstash (or any Upstash-compatible REST endpoint) from a URL and token or a client. */
export function upstashStore(options: UpstashStoreOptions): UpstashStore {
  return new UpstashStore(options);
}

function isClient(options: UpstashStoreOptions): options is Redis {
  return typeof (options as Partial<Redis> | undefined)?.pipeline === 'function';
}
