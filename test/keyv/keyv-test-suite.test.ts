/**
 * Issue 30, item 1: `@keyv/test-suite` (Keyv's own compliance suite, the npm package used as it
 * is) over cachette/keyv: its API, values, namespace and iterator suites, on memory and on a real
 * redis-server, each through a store (the adapter builds its own cache) and through a cache you
 * pass. 42 tests per target, none skipped: the suite file declares them all, unchanged.
 *
 * The suites call their `store()` factory for every Keyv they build, and Keyv writes its
 * namespace on the adapter it is given: each call returns a new adapter over one shared store
 * (or cache), as an app that builds several Keyv instances over one backend does.
 */
import { keyvApiTests, keyvIteratorTests, keyvNamespaceTest, keyvValueTests } from '@keyv/test-suite';
import Keyv from 'keyv';
import * as vitest from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { keyvStore } from '../../src/keyv/index.ts';
import { createCache, type Cache, type Store } from '../../src/index.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

const { afterAll, describe } = vitest;

interface Target {
  name: string;
  open(): Store;
}

const targets: Target[] = [{ name: 'memory', open: () => memoryStore() }];
if (requireRedis()) targets.push({ name: 'valkey', open: () => valkeyStore(redisUrl!) });

describe.each(targets)('@keyv/test-suite over cachette/keyv on $name', (target) => {
  describe('through a store', () => {
    const store = target.open();
    afterAll(() => store.close());
    const factory = () => keyvStore(store);
    keyvApiTests(vitest, Keyv, factory);
    keyvValueTests(vitest, Keyv, factory);
    keyvNamespaceTest(vitest, Keyv, factory);
    keyvIteratorTests(vitest, Keyv, factory);
  });

  describe('through a cache', () => {
    // A prefix of its own: the valkey server is shared with the other test files.
    const cache: Cache = createCache({ store: target.open(), prefix: uniqueNamespace('keyv-suite') });
    afterAll(async () => {
      await cache.clear();
      await cache.close();
    });
    const factory = () => keyvStore(cache);
    keyvApiTests(vitest, Keyv, factory);
    keyvValueTests(vitest, Keyv, factory);
    keyvNamespaceTest(vitest, Keyv, factory);
    keyvIteratorTests(vitest, Keyv, factory);
  });
});
