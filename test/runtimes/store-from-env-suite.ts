import assert from 'node:assert/strict';
import { memoryStore } from '../../adapters/memory/index.ts';
import type { StoreSelectionOptions } from '../../runtimes/shared/env-store.ts';
import type { Store } from '../../src/store/types.ts';
import { bytes, text, type SuiteApi } from '../support/suite-api.ts';

/** A runtime's `storeFromEnv`, as cachette/node, cachette/bun and cachette/deno export it. */
export type StoreFromEnv = (options?: StoreSelectionOptions) => Promise<Store>;

/** What a runtime's `storeFromEnv` should open for a Valkey URL. */
export interface StoreFromEnvExpectation {
  /** `name` of the store opened for VALKEY_URL / REDIS_URL ("valkey", or "bun-redis" on Bun). */
  valkeyStoreName: string;
  /** What the announced line adds after the URL on this runtime (Bun names its client). */
  valkeyLineSuffix: string;
}

const VARIABLES = ['VALKEY_URL', 'REDIS_URL', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'] as const;

/**
 * `storeFromEnv()` on one runtime, reading that runtime's real process environment (which the
 * suite sets and restores around each call): Valkey from REDIS_URL through the runtime's
 * client, memory when nothing is set, an explicit store first, a malformed URL refused.
 * Runner-neutral: run unchanged by vitest (Node), bun test and Deno.test.
 */
export function storeFromEnvSuite(t: SuiteApi, runtime: string, storeFromEnv: StoreFromEnv, expect: StoreFromEnvExpectation): void {
  const redisUrl = process.env.REDIS_URL;
  const withEnv = async <T>(vars: Partial<Record<(typeof VARIABLES)[number], string>>, body: () => Promise<T>): Promise<T> => {
    const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
    for (const name of VARIABLES) {
      if (vars[name] === undefined) delete process.env[name];
      else process.env[name] = vars[name];
    }
    try {
      return await body();
    } finally {
      for (const name of VARIABLES) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  };

  t.describe(`${runtime} storeFromEnv`, () => {
    t.it("opens Valkey from REDIS_URL through the runtime's client and says so once", async () => {
      if (!redisUrl) throw new Error('REDIS_URL is needed: scripts/test and the vitest global setup provide it');
      const lines: string[] = [];
      const store = await withEnv({ REDIS_URL: redisUrl }, () => storeFromEnv({ log: (line) => lines.push(line) }));
      try {
        assert.equal(store.name, expect.valkeyStoreName);
        assert.deepEqual(lines, [`[cachette] store: valkey (REDIS_URL=${redisUrl}${expect.valkeyLineSuffix})`]);
        const key = `store-from-env:${runtime}:${Date.now().toString(36)}`;
        await store.set(key, bytes('shared'), 10_000);
        assert.equal(text(await store.get(key)), 'shared');
        assert.equal(await store.delete([key]), 1);
      } finally {
        await store.close();
      }
    });

    t.it('falls back to memory when no variable names a store', async () => {
      const store = await withEnv({}, () => storeFromEnv({ log: false }));
      assert.equal(store.name, 'memory');
      await store.close();
    });

    t.it('returns an explicit store over every variable, without opening another', async () => {
      const mine = memoryStore();
      const lines: string[] = [];
      const store = await withEnv({ VALKEY_URL: 'redis://127.0.0.1:1' }, () => storeFromEnv({ store: mine, log: (line) => lines.push(line) }));
      assert.equal(store, mine);
      assert.deepEqual(lines, ['[cachette] store: memory (passed explicitly)']);
    });

    t.it('refuses a malformed VALKEY_URL with a TypeError naming it', async () => {
      await assert.rejects(
        withEnv({ VALKEY_URL: 'localhost:6379' }, () => storeFromEnv({ log: false })),
        (e: Error) => e instanceof TypeError && /VALKEY_URL must be a redis:\/\//.test(e.message),
      );
    });
  });
}
