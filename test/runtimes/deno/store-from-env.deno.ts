// cachette/deno's storeFromEnv: `deno test -A --no-check test/runtimes/deno/store-from-env.deno.ts`.
import assert from 'node:assert/strict';
import { storeFromEnv } from '../../../runtimes/deno/index.ts';
import { storeFromEnvSuite } from '../store-from-env-suite.ts';
import { denoSuiteApi } from './suite-api.ts';

const t = denoSuiteApi();
storeFromEnvSuite(t, 'deno', storeFromEnv, { valkeyStoreName: 'valkey', valkeyLineSuffix: '' });

t.describe('deno storeFromEnv with env passed in', () => {
  t.it('picks from the variables given, not from Deno.env (the way to run without --allow-env)', async () => {
    // REDIS_URL is set in this process; the env passed in has nothing, so memory it is.
    assert.ok(process.env.REDIS_URL, 'REDIS_URL is set for the run');
    const store = await storeFromEnv({ env: {}, log: false });
    assert.equal(store.name, 'memory');
    await store.close();
  });
});
