/**
 * The harness of the HTTP behaviour suite: what a target is, what a scenario gets, and the
 * `scenario` declaration every group of scenarios uses. Runner-neutral (see suite-api.ts).
 */
import { createCache, type Cache } from '../../../src/cache/create-cache.ts';
import type { HttpCacheOptions, PurgeTarget } from '../../../src/http/index.ts';
import type { Store } from '../../../src/store/types.ts';
import type { SuiteApi } from '../../support/suite-api.ts';
import { FakeClock, reply, ScriptedOrigin } from '../scripted-origin.ts';

/** Cache options a test may set (the target supplies the store). */
export type TestCacheOptions = Omit<HttpCacheOptions, 'store' | 'cache'>;

/** A cache put in front of a scripted origin. */
export interface RunningTarget {
  /** Sends a request to the cache; `path` starts with "/". */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when the cache's background work (store writes, revalidations) is done. */
  idle(): Promise<void>;
  close(): Promise<void>;
  /** The store the cache keeps its entries on, so a scenario can plant what an attacker with store access could. */
  store: Store;
}

/**
 * How one runtime puts the cache in front of an origin: on Node, the proxy and the Hono
 * middleware over real HTTP; elsewhere the origin may stay an in-process fetch handler.
 */
export interface HttpTarget {
  name: string;
  start(origin: (request: Request) => Promise<Response>, options: TestCacheOptions): Promise<RunningTarget>;
}

/** What a client got, read completely. */
export interface Got {
  status: number;
  body: string;
  age: number | undefined;
  /** This cache's Cache-Status member (the last one). */
  cs: string;
  headers: Headers;
}

/** What a scenario works with. */
export interface Scenario {
  origin: ScriptedOrigin;
  clock: FakeClock;
  cache: RunningTarget;
  /** Sends a request, reads the whole body, then waits for the cache's background work. */
  get(path: string, init?: RequestInit): Promise<Got>;
  /** An engine on the same store and namespace as the cache under test: entries written through it are the cache's own. */
  engine: Cache;
}

/** Declares one test with a fresh origin, clock and cache. */
export type ScenarioFn = (name: string, options: TestCacheOptions, body: (s: Scenario) => Promise<void>) => void;

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The common case: a reply per request numbered n, with these headers. */
export const numbered =
  (headers: Record<string, string>, status = 200) =>
  (_: Request, k: number) =>
    reply(`v${k}`, headers, status);

/** This cache's member of a Cache-Status value (the last one: a target may stack another cache in front). */
export function ownCacheStatus(value: string | null): string {
  return (value ?? '').split(/,\s*(?=cachette)/).pop()!;
}

/** The `scenario` function for one target: each test gets its own namespace on the target's shared store. */
export function scenarioFor(t: SuiteApi, target: HttpTarget): ScenarioFn {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  let n = 0;
  return (name, options, body) => {
    t.it(name, async () => {
      const clock = new FakeClock();
      const origin = new ScriptedOrigin(clock);
      const namespace = `http-test-${run}-${n++}`;
      const cache = await target.start(origin.fetch, { namespace, now: clock.now, ...options });
      const engine = createCache({ store: cache.store, namespace, compression: false, closeStore: false });
      const get = async (path: string, init?: RequestInit): Promise<Got> => {
        const res = await cache.fetch(path, init);
        const text = await res.text();
        await cache.idle();
        const age = res.headers.get('age');
        return { status: res.status, body: text, age: age === null ? undefined : Number(age), cs: ownCacheStatus(res.headers.get('cache-status')), headers: res.headers };
      };
      try {
        await body({ origin, clock, cache, get, engine });
      } finally {
        await engine.close();
        await cache.close();
      }
    });
  };
}
