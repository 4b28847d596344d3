import { createCache } from '../cache/create-cache.ts';
import { resolveOptions, type CacheLogger, type CacheOptions } from '../cache/options.ts';
import type { Cache } from '../cache/types.ts';
import { checkVersion } from '../cache/roles/versioned.ts';
import type { Store } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import { checkKnownOptions, checkOptionsObject, storeOptionMistake } from '../util/known-options.ts';

/** The options of the cache the handlers open when you pass a store rather than a cache. */
export type NextCacheCreationOptions = Pick<CacheOptions, 'prefix' | 'namespace' | 'timeout' | 'circuitBreaker' | 'batch' | 'compression' | 'maxValueBytes' | 'l1' | 'writeLeaseTtl' | 'clock'>;

/** Options of `createCacheHandler` and `createIncrementalCacheHandler`. */
export interface NextCacheOptions extends NextCacheCreationOptions {
  /**
   * Where entries and tags live: a store object, or (on Node, Bun and Deno) a store named the
   * way the environment would name it (`redis://…`, `sqlite:PATH`, `memory`). Left out, with no
   * `cache` either, Node, Bun and Deno pick it from the environment (VALKEY_URL / REDIS_URL,
   * UPSTASH_REDIS_REST_URL + _TOKEN, CACHETTE_STORE=sqlite:PATH, otherwise process memory).
   */
  store?: Store | string;
  /**
   * A cachette cache you already have (its serializer must be `auto` or `cbor`): the handlers
   * share its store, its prefix and namespace and so its tags, which `cache.invalidateTags`
   * from any process moves on for Next too. The cache's own options stay the cache's.
   */
  cache?: Cache;
  /** Where the one line naming the store picked from the environment goes; `false` keeps quiet. Default console.info. */
  log?: ((line: string) => void) | false;
  /**
   * Where the handlers' warnings go, each said once (an entry with more tags than an entry can
   * record, a record that is not theirs), and the cache's (a store going down, coming back) when
   * the cache is created here. Default `console`; `false` writes nothing.
   */
  logger?: CacheLogger | false;
  /**
   * After `updateTag` (and any revalidation that expires at once), how long no instance stores
   * entries of those tags: a render that read the data before the write and ends within this
   * time is served but not cached. A write fence held on the store (`beginWrite`), then
   * committed. Default 1 s; 0 commits at once.
   */
  writeFence?: Duration;
  /**
   * The build (deployment) these handlers serve, e.g. `process.env.DEPLOYMENT_ID`: pages and
   * route handlers are then stored per build, while data entries (`"use cache"`, `fetch`,
   * `unstable_cache`) and tags are shared by every build over the same store, prefix and
   * namespace, so a deploy starts warm. A data entry another build stored is counted in
   * `stats().fromOtherBuilds`. Left out, every entry is this deployment's own only when
   * `namespace` is per deployment (docs/next.md#across-deploys).
   */
  buildId?: string;
  /**
   * The version of your data's shape (a non-empty string or a finite number), as `getOrSet`'s
   * `version` is: an entry stored under another version (or none, when this one is given) is a
   * miss, counted in `stats().otherVersions`, and is replaced by the next write. Bump it when
   * what a `"use cache"` function or a fetch returns changes shape. Default: none.
   */
  version?: string | number;
}

/** What the handlers counted of entries written by other builds and versions (`stats()` of either handler). */
export interface NextHandlerStats {
  /** Data entries served (fresh or stale) that a handler with another `buildId` stored. */
  readonly fromOtherBuilds: number;
  /** Entries refused because they were stored under another `version`: each one a miss. */
  readonly otherVersions: number;
}

/** What the handlers need once the options are checked: the cache (opened on first use) and their own settings. */
export interface HandlerContext {
  /** The cache, opened by the first call that needs it; every later call shares it. */
  cache(): Promise<Cache>;
  /** How long a hard revalidation fences its tags, in ms. */
  readonly fenceMs: number;
  /** The largest entry read from Next before it is stored (the cache refuses larger ones anyway). */
  readonly maxEntryBytes: number;
  /** Says a problem through `logger`, once per `topic` (the first occurrence's message). */
  readonly warn: (topic: string, message: string) => void;
  /** Says something that works through `logger`'s `info`, once per `topic`. */
  readonly inform: (topic: string, message: string) => void;
  /** The build these handlers serve (`buildId`), undefined when not given. */
  readonly buildId: string | undefined;
  /** The version entries must have been stored under (`version`), undefined when not given. */
  readonly version: string | number | undefined;
  /** What the handlers counted so far; `stats()` copies it. */
  readonly counts: { fromOtherBuilds: number; otherVersions: number };
}

/**
 * How an entry point opens the store when the options pass none, or name one by a string:
 * called when the handler is created (so that a bad VALKEY_URL fails at start-up and the line
 * naming the store is said once), it returns what opens the store on first use.
 */
export type StorePicker = (named: string | undefined, log: NextCacheOptions['log'], where: string) => () => Promise<Store>;

const CREATION_OPTIONS: ReadonlyArray<keyof NextCacheCreationOptions> = ['prefix', 'namespace', 'timeout', 'circuitBreaker', 'batch', 'compression', 'maxValueBytes', 'l1', 'writeLeaseTtl', 'clock'];
const OWN_OPTIONS: ReadonlyArray<keyof NextCacheOptions> = ['store', 'cache', 'log', 'logger', 'writeFence', 'buildId', 'version'];
/** The longest `buildId`: it is part of every page's key. */
const MAX_BUILD_ID = 128;
const DEFAULT_FENCE_MS = 1000;
const DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024;

/**
 * Checks the options of `where` (the function the user called) and returns what its handler
 * needs. The cache is created on first use, from `options.cache`, `options.store` or the
 * store `pick` finds; a store it opened is never closed by it (a Next server process lives as
 * long as its handlers).
 */
export function handlerContext(options: NextCacheOptions | undefined, pick: StorePicker, where: string): HandlerContext {
  const given = options ?? {};
  checkOptionsObject(given, where);
  checkKnownOptions(given, [...OWN_OPTIONS, ...CREATION_OPTIONS], where);
  const { store, cache, log, logger: loggerOption, writeFence, buildId, version: versionOption, ...creation } = given;
  if (buildId !== undefined && (typeof buildId !== 'string' || buildId === '' || buildId.length > MAX_BUILD_ID || buildId.includes(':'))) {
    throw new TypeError(`${where}: "buildId" must be a non-empty string of at most ${MAX_BUILD_ID} characters without ":", got ${JSON.stringify(buildId) ?? typeof buildId}`);
  }
  const version = versionOption === undefined ? undefined : checkVersion(versionOption, where);
  const fenceMs = toMs(writeFence ?? DEFAULT_FENCE_MS, `${where}: writeFence`);
  if (!Number.isFinite(fenceMs)) throw new RangeError(`${where}: writeFence must be finite: a fence nobody commits would stop caching its tags until the lease expires`);
  if (log !== undefined && log !== false && typeof log !== 'function') throw new TypeError(`${where}: "log" must be a function or false`);
  const logger = loggerOption === false ? undefined : (loggerOption ?? console);
  const said = new Set<string>();
  const once = (level: 'info' | 'warn') => (topic: string, message: string) => {
    if (said.has(topic)) return;
    said.add(topic);
    logger?.[level](`[cachette/next] ${message}`);
  };
  const own = { warn: once('warn'), inform: once('info'), buildId, version, counts: { fromOtherBuilds: 0, otherVersions: 0 } };
  const maxEntryBytes = creation.maxValueBytes ?? DEFAULT_MAX_ENTRY_BYTES;
  const mistake = store === undefined || typeof store === 'string' ? undefined : storeOptionMistake(store, where);
  if (mistake) throw mistake;
  if (cache !== undefined) {
    if (store !== undefined) throw new TypeError(`${where}: pass "store" or "cache", not both`);
    if (typeof cache !== 'object' || cache === null || typeof cache.get !== 'function' || typeof cache.beginWrite !== 'function') {
      throw new TypeError(`${where}: "cache" must be a cache from createCache()`);
    }
    const stray = Object.keys(creation);
    if (stray.length > 0) throw new TypeError(`${where}: "${stray[0]}" is an option of the cache; with "cache", give it to createCache()`);
    const ready = Promise.resolve(cache);
    return { cache: () => ready, fenceMs, maxEntryBytes, ...own };
  }
  const open = typeof store === 'object' ? () => Promise.resolve(store) : pick(store, log, where);
  let opened: Promise<Cache> | undefined;
  const cacheOptions: Omit<CacheOptions, 'store'> = { ...creation, logger: loggerOption };
  // Checked now, against a store that stands for the real one, so that a bad option fails where it was written.
  const { writeLeaseTtlMs } = resolveOptions({ ...cacheOptions, store: optionsProbe });
  if (fenceMs > writeLeaseTtlMs) {
    throw new RangeError(`${where}: writeFence (${fenceMs} ms) is longer than writeLeaseTtl (${writeLeaseTtlMs} ms): the fence's lease would lapse first; raise writeLeaseTtl too`);
  }
  return {
    cache: () => (opened ??= open().then((opened) => createCache({ ...cacheOptions, store: opened }))),
    fenceMs,
    maxEntryBytes,
    ...own,
  };
}

/**
 * A store that is never called: it lets the cache's options be checked before the real store is
 * opened. It claims every capability an option may ask for; what the real store lacks is said
 * when it opens.
 */
const optionsProbe: Store = {
  name: 'options check',
  get: () => Promise.reject(new Error('unused')),
  getMany: () => Promise.reject(new Error('unused')),
  set: () => Promise.reject(new Error('unused')),
  setMany: () => Promise.reject(new Error('unused')),
  delete: () => Promise.reject(new Error('unused')),
  incr: () => Promise.reject(new Error('unused')),
  close: () => Promise.resolve(),
  track: () => ({ live: false, session: 0, close: () => Promise.resolve() }),
};
