/**
 * Assertions on what a cache did, read from its events: a test says "two hits, one miss, the
 * factory ran once" instead of timing calls or peeking at the store. Framework-neutral: a
 * failed expectation throws a {@link ProbeAssertionError} that carries `expected` and `actual`,
 * which vitest, Jest, node:test, Bun and Deno all print as a diff.
 */
import type { CacheEventMap, CacheEventType } from '../cache/events.ts';
import type { Cache } from '../cache/types.ts';

/** How often each thing happened, as the cache's events told it. */
export interface ProbeCounts {
  /** Fresh values found (`hit`). */
  hits: number;
  /** Reads that found nothing usable (`miss`). */
  misses: number;
  /** Stale values served inside grace while a refresh runs (`stale`). */
  stale: number;
  /** Stale values served because the source failed (`staleOnError`). */
  staleOnError: number;
  /** Calls that joined a fill already running (`coalesced`). */
  coalesced: number;
  /** Background refreshes started (`refresh`). */
  refreshes: number;
  /** Factory runs, foreground and background, failed ones included (`fill`). */
  fills: number;
  /** Factory runs that failed or timed out (`fill` with an error). */
  fillErrors: number;
  /** Entries refused because a tag was invalidated since (`outdated`). */
  outdated: number;
  /** Fills whose value was not stored because a write held a tag (`fenced`). */
  fenced: number;
  /** Stored values refused by `version` or `schema` (`invalid`). */
  invalid: number;
  /** Stored bytes that could not be read (`corrupt`). */
  corrupt: number;
  /** Store, background factory and encode errors (`error`). */
  errors: number;
}

/** One event as the probe saw it, in order. */
export interface ProbeRecord {
  /** The event's type. */
  readonly type: CacheEventType;
  /** The key it was about (the first key for errors; undefined for events without one). */
  readonly key: string | undefined;
}

/** Options of {@link cacheProbe}. */
export interface CacheProbeOptions {
  /** Most records kept in {@link CacheProbe.log}, oldest dropped first (default 10,000): counts stay exact. */
  maxLog?: number;
}

/** What {@link cacheProbe} returns. */
export interface CacheProbe {
  /** The counts so far, of every key or of one. */
  counts(key?: string): ProbeCounts;
  /** The latest events, oldest first (at most `maxLog`). */
  readonly log: readonly ProbeRecord[];
  /**
   * Throws a {@link ProbeAssertionError} unless each count named in `expected` is what was seen
   * (of `key` only when given); counts not named are not checked.
   */
  expect(expected: Partial<ProbeCounts>, key?: string): void;
  /** Forgets what was seen (counts and log) and goes on listening. */
  reset(): void;
  /** Stops listening. */
  stop(): void;
}

/** A probe's expectation that did not hold. */
export class ProbeAssertionError extends Error {
  override name = 'ProbeAssertionError';
  /** A stable code, as every error of the package has. */
  readonly code = 'E_PROBE_ASSERTION';
  /** The counts the test named. */
  readonly expected: Partial<ProbeCounts>;
  /** The same counts as seen. */
  readonly actual: Partial<ProbeCounts>;

  /** `expected` and `actual` hold the same names; the message lists those that differ. */
  constructor(expected: Partial<ProbeCounts>, actual: Partial<ProbeCounts>, key: string | undefined) {
    const wrong = (Object.keys(expected) as Array<keyof ProbeCounts>).filter((name) => expected[name] !== actual[name]);
    super(`cache probe${key === undefined ? '' : ` of key ${JSON.stringify(key)}`}: ${wrong.map((name) => `${name} expected ${expected[name]}, saw ${actual[name]}`).join('; ')}`);
    this.expected = expected;
    this.actual = actual;
  }
}

// `warm` reports progress: the fills it causes are counted by their own `fill` events.
const COUNTED: Record<Exclude<CacheEventType, 'health' | 'coherence' | 'cdnFailed' | 'warm'>, keyof ProbeCounts> = {
  hit: 'hits',
  miss: 'misses',
  stale: 'stale',
  staleOnError: 'staleOnError',
  coalesced: 'coalesced',
  refresh: 'refreshes',
  fill: 'fills',
  outdated: 'outdated',
  fenced: 'fenced',
  invalid: 'invalid',
  corrupt: 'corrupt',
  error: 'errors',
};

function zero(): ProbeCounts {
  return { hits: 0, misses: 0, stale: 0, staleOnError: 0, coalesced: 0, refreshes: 0, fills: 0, fillErrors: 0, outdated: 0, fenced: 0, invalid: 0, corrupt: 0, errors: 0 };
}

function keyOf(type: keyof typeof COUNTED, detail: CacheEventMap[keyof typeof COUNTED]): string | undefined {
  return type === 'error' ? (detail as CacheEventMap['error']).keys[0] : (detail as { key: string }).key;
}

/**
 * Listens to `cache`'s events and counts them, in total and per key.
 *
 * ```ts
 * const probe = cacheProbe(cache);
 * await cache.getOrSet('user:1', load);
 * await cache.getOrSet('user:1', load);
 * probe.expect({ misses: 1, fills: 1, hits: 1 });
 * ```
 */
export function cacheProbe(cache: Cache, options: CacheProbeOptions = {}): CacheProbe {
  if (typeof cache?.events?.addEventListener !== 'function') throw new TypeError('cacheProbe: the argument must be a cache made by createCache()');
  const maxLog = options.maxLog ?? 10_000;
  if (!Number.isInteger(maxLog) || maxLog < 0) throw new RangeError(`cacheProbe: maxLog must be a non-negative integer, got ${String(options.maxLog)}`);
  let total = zero();
  let perKey = new Map<string, ProbeCounts>();
  let log: ProbeRecord[] = [];
  const listeners = (Object.keys(COUNTED) as Array<keyof typeof COUNTED>).map((type) => {
    const listener = (event: Event) => {
      const detail = (event as CustomEvent<CacheEventMap[typeof type]>).detail;
      const key = keyOf(type, detail);
      const failedFill = type === 'fill' && (detail as CacheEventMap['fill']).error !== undefined;
      for (const counts of key === undefined ? [total] : [total, perKey.get(key) ?? perKey.set(key, zero()).get(key)!]) {
        counts[COUNTED[type]]++;
        if (failedFill) counts.fillErrors++;
      }
      if (maxLog > 0) {
        if (log.length >= maxLog) log.shift();
        log.push({ type, key });
      }
    };
    cache.events.addEventListener(type, listener);
    return [type, listener] as const;
  });
  return {
    counts: (key) => ({ ...(key === undefined ? total : (perKey.get(key) ?? zero())) }),
    get log() {
      return log;
    },
    expect(expected, key) {
      const seen = key === undefined ? total : (perKey.get(key) ?? zero());
      const actual: Partial<ProbeCounts> = {};
      for (const name of Object.keys(expected) as Array<keyof ProbeCounts>) {
        if (!(name in seen)) throw new TypeError(`cacheProbe.expect: unknown count ${JSON.stringify(name)}; known: ${Object.keys(seen).join(', ')}`);
        actual[name] = seen[name];
      }
      if ((Object.keys(expected) as Array<keyof ProbeCounts>).some((name) => expected[name] !== actual[name])) throw new ProbeAssertionError({ ...expected }, actual, key);
    },
    reset() {
      total = zero();
      perKey = new Map();
      log = [];
    },
    stop() {
      for (const [type, listener] of listeners) cache.events.removeEventListener(type, listener);
    },
  };
}

/** A function wrapped by {@link countCalls}: the same function, and how often it ran. */
export type CountedFunction<A extends unknown[], R> = ((...args: A) => R) & {
  /** Calls so far. */
  readonly calls: number;
  /** The arguments of each call so far, oldest first. */
  readonly args: readonly A[];
  /** Forgets the calls. */
  reset(): void;
};

/**
 * Wraps a factory (or any function) to count its calls: `expect(load.calls).toBe(1)` after
 * concurrent `getOrSet`s shows the miss was coalesced.
 */
export function countCalls<A extends unknown[], R>(fn: (...args: A) => R): CountedFunction<A, R> {
  if (typeof fn !== 'function') throw new TypeError('countCalls: the argument must be a function');
  let args: A[] = [];
  const counted = (...callArgs: A): R => {
    args.push(callArgs);
    return fn(...callArgs);
  };
  return Object.defineProperties(counted, {
    calls: { get: () => args.length },
    args: { get: () => args },
    reset: { value: () => (args = []) },
  }) as CountedFunction<A, R>;
}
