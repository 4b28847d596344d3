import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { chooseStore, describeChoice, openStoreFromEnv } from '../../runtimes/shared/env-store.ts';

describe('CACHETTE_STORE in the environment', () => {
  it('sqlite:PATH picks the embedded store, ahead of the generic server variables', () => {
    assert.deepEqual(chooseStore({ CACHETTE_STORE: 'sqlite:./cache.db' }), { kind: 'sqlite', path: './cache.db' });
    assert.deepEqual(chooseStore({ CACHETTE_STORE: ' sqlite:/var/cache/app.db ', REDIS_URL: 'redis://h:1', UPSTASH_REDIS_REST_URL: 'https://u', UPSTASH_REDIS_REST_TOKEN: 't' }), {
      kind: 'sqlite',
      path: '/var/cache/app.db',
    });
    assert.equal(describeChoice(chooseStore({ CACHETTE_STORE: 'sqlite:./cache.db' })), 'store: sqlite (CACHETTE_STORE=sqlite:./cache.db; shared by the processes of this machine)');
  });

  it('memory forces process memory even when a server URL is set', () => {
    const choice = chooseStore({ CACHETTE_STORE: 'memory', VALKEY_URL: 'redis://h:1' });
    assert.deepEqual(choice, { kind: 'memory', variable: 'CACHETTE_STORE' });
    assert.equal(describeChoice(choice), 'store: memory (CACHETTE_STORE=memory; not shared between processes or isolates)');
  });

  it('an unknown value or an empty path is a clear error, never a quiet fallback', () => {
    for (const bad of ['sqlite:', 'sqlite:   ', 'redis://h:1', 'SQLITE:./x.db', 'lmdb:./x']) {
      assert.throws(
        () => chooseStore({ CACHETTE_STORE: bad }),
        (e: Error) => e instanceof TypeError && /CACHETTE_STORE must be "sqlite:PATH" \(e.g. sqlite:.\/cache.db\) or "memory"/.test(e.message),
        bad,
      );
    }
    assert.deepEqual(chooseStore({ CACHETTE_STORE: '' }), { kind: 'memory' }, 'empty counts as unset');
  });

  it('a runtime without files (Workers) says what would work instead', async () => {
    await assert.rejects(openStoreFromEnv({ CACHETTE_STORE: 'sqlite:./x.db' }, {}, { log: false }), /is not available on this runtime: this runtime has no local files for SQLite/);
  });
});
