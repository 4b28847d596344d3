// cachette/deno's storeFromEnv: `deno test -A --no-check test/runtimes/deno/store-from-env.deno.ts`.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { storeFromEnv } from '../../../runtimes/deno/index.ts';
import { storeFromEnvSuite } from '../store-from-env-suite.ts';
import { denoSuiteApi } from './suite-api.ts';

/** The slice of the Deno namespace this file uses (the repo's tsconfig has no Deno types). */
declare const Deno: {
  execPath(): string;
  Command: new (program: string, options: { args: string[]; stdout: 'piped'; stderr: 'piped' }) => { output(): Promise<{ code: number; stdout: Uint8Array; stderr: Uint8Array }> };
};

const t = denoSuiteApi();
storeFromEnvSuite(t, 'deno', storeFromEnv, { valkeyStoreName: 'valkey', valkeyLineSuffix: '' });

t.describe('deno storeFromEnv with env passed in', () => {
  t.it('picks from the variables given, not from Deno.env', async () => {
    // REDIS_URL is set in this process; the env passed in has nothing, so memory it is.
    assert.ok(process.env.REDIS_URL, 'REDIS_URL is set for the run');
    const store = await storeFromEnv({ env: {}, log: false });
    assert.equal(store.name, 'memory');
    await store.close();
  });

  t.it('without permission to read the environment and without env, rejects with a TypeError saying what to do', async () => {
    const script = fileURLToPath(new URL('./fixtures/store-from-env-no-env.ts', import.meta.url));
    // No env permission at all: cachette loads without one (it once needed
    // CBOR_NATIVE_ACCELERATION_DISABLED, which cbor-x's Node entry read as it loaded).
    const args = ['run', '--no-check', '--no-prompt', '--allow-read', script];
    const run = await new Deno.Command(Deno.execPath(), { args, stdout: 'piped', stderr: 'piped' }).output();
    const out = new TextDecoder().decode(run.stdout).trim();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.equal(out, 'TypeError: cachette/deno: cannot read the environment to pick a store; run with --allow-env, or pass "env" or "store"');
  });
});
