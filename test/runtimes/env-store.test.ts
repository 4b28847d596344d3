import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { chooseStore, describeChoice, openStoreFromEnv } from '../../runtimes/shared/env-store.ts';
import { serverStoreFactories } from '../../runtimes/shared/server-stores.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';

const UPSTASH = { UPSTASH_REDIS_REST_URL: 'https://example.upstash.io', UPSTASH_REDIS_REST_TOKEN: 'tok' };

describe('store selection from the environment', () => {
  it('an explicit store wins over every variable', () => {
    const store = memoryStore();
    const choice = chooseStore({ VALKEY_URL: 'redis://127.0.0.1:1', ...UPSTASH }, { store });
    assert.deepEqual(choice, { kind: 'explicit', store });
    assert.equal(describeChoice(choice), 'store: memory (passed explicitly)');
  });

  it('VALKEY_URL wins over REDIS_URL, and REDIS_URL over Upstash', () => {
    assert.deepEqual(chooseStore({ VALKEY_URL: 'valkey://a:1', REDIS_URL: 'redis://b:2', ...UPSTASH }), { kind: 'valkey', url: 'valkey://a:1', variable: 'VALKEY_URL' });
    assert.deepEqual(chooseStore({ REDIS_URL: 'rediss://b:2', ...UPSTASH }), { kind: 'valkey', url: 'rediss://b:2', variable: 'REDIS_URL' });
  });

  it('Upstash needs both variables and an http(s) URL', () => {
    assert.deepEqual(chooseStore(UPSTASH), { kind: 'upstash', url: UPSTASH.UPSTASH_REDIS_REST_URL, token: 'tok' });
    assert.throws(() => chooseStore({ UPSTASH_REDIS_REST_URL: UPSTASH.UPSTASH_REDIS_REST_URL }), /UPSTASH_REDIS_REST_URL is set but UPSTASH_REDIS_REST_TOKEN is not/);
    assert.throws(() => chooseStore({ UPSTASH_REDIS_REST_TOKEN: 'tok' }), /UPSTASH_REDIS_REST_TOKEN is set but UPSTASH_REDIS_REST_URL is not/);
    assert.throws(() => chooseStore({ ...UPSTASH, UPSTASH_REDIS_REST_URL: 'redis://x:1' }), /UPSTASH_REDIS_REST_URL must be an http\(s\):\/\/ URL/);
  });

  it('falls back to memory when nothing is configured; empty variables count as unset', () => {
    assert.deepEqual(chooseStore({}), { kind: 'memory' });
    assert.deepEqual(chooseStore({ VALKEY_URL: '', REDIS_URL: '  ', UPSTASH_REDIS_REST_URL: '' }), { kind: 'memory' });
  });

  it('a malformed VALKEY_URL is a clear error, never a quiet fallback', () => {
    for (const bad of ['localhost:6379', 'http://127.0.0.1:6379', 'not a url', 'redis://']) {
      assert.throws(
        () => chooseStore({ VALKEY_URL: bad }),
        (e: Error) => e instanceof TypeError && /VALKEY_URL must be a redis:\/\/, rediss:\/\/, valkey:\/\/ or valkeys:\/\/ URL/.test(e.message),
        bad,
      );
    }
    assert.throws(() => chooseStore({ REDIS_URL: 'tcp://x:1' }), /REDIS_URL must be/);
    assert.throws(() => chooseStore({ VALKEY_URL: 6379 as unknown as string }), /VALKEY_URL must be a string, got number/);
  });

  it('a KV binding name that is missing, or not KV, is an error', () => {
    assert.throws(() => chooseStore({}, { kvBinding: 'MY_KV' }), /the KV binding "MY_KV" is not in env/);
    assert.throws(() => chooseStore({ CACHETTE_KV: 'a string var' }), /env.CACHETTE_KV is not a Workers KV namespace binding/);
  });

  it('never logs a password or a token', () => {
    assert.equal(describeChoice(chooseStore({ VALKEY_URL: 'redis://user:hunter2@127.0.0.1:6379/0' })), 'store: valkey (VALKEY_URL=redis://user:***@127.0.0.1:6379/0)');
    assert.ok(!describeChoice(chooseStore(UPSTASH)).includes('tok'));
    assert.throws(
      () => chooseStore({ VALKEY_URL: 'http://u:hunter2@h:1' }),
      (e: Error) => !e.message.includes('hunter2'),
    );
  });

  it('opens memory and says so once', async () => {
    const lines: string[] = [];
    const store = await openStoreFromEnv({}, serverStoreFactories, { log: (l) => lines.push(l) });
    assert.equal(store.name, 'memory');
    assert.deepEqual(lines, ['[cachette] store: memory (no VALKEY_URL, REDIS_URL, UPSTASH_REDIS_REST_URL or KV binding; not shared between processes or isolates)']);
  });

  it('opens an Upstash store from the pair (no request is made until it is used)', async () => {
    const store = await openStoreFromEnv(UPSTASH, serverStoreFactories, { log: false });
    assert.equal(store.name, 'upstash');
    await store.close();
  });

  it('a kind the runtime has no factory for names what would work', async () => {
    await assert.rejects(
      openStoreFromEnv({ VALKEY_URL: 'redis://127.0.0.1:1' }, {}, { log: false }),
      /is not available on this runtime: this runtime cannot open TCP connections to Valkey; set UPSTASH_REDIS_REST_URL/,
    );
  });

  it.runIf(requireRedis())('opens a working Valkey store from VALKEY_URL', async () => {
    const lines: string[] = [];
    const store = await openStoreFromEnv({ VALKEY_URL: redisUrl }, serverStoreFactories, { log: (l) => lines.push(l) });
    try {
      assert.equal(store.name, 'valkey');
      assert.deepEqual(lines, [`[cachette] store: valkey (VALKEY_URL=${new URL(redisUrl!).toString()})`]);
      const key = `env-store:${Date.now()}`;
      await store.set(key, bytes('ok'), 10_000);
      assert.equal(text(await store.get(key)), 'ok');
      await store.delete([key]);
    } finally {
      await store.close();
    }
  });
});
