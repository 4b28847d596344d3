// A cachette program under Deno with only the permissions it uses (issue 20, first-hour
// defect 6): `deno test -A --no-check test/runtimes/deno/permissions.deno.ts` runs the fixture
// with --allow-net alone. Before, cbor-x read CBOR_NATIVE_ACCELERATION_DISABLED as it loaded
// (NotCapable without --allow-env), and the first cached request printed Deno's warning about
// request.signal's legacy behaviour.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { denoSuiteApi } from './suite-api.ts';

/** The slice of the Deno namespace this file uses (the repo's tsconfig has no Deno types). */
declare const Deno: {
  execPath(): string;
  Command: new (program: string, options: { args: string[]; stdout: 'piped'; stderr: 'piped' }) => { output(): Promise<{ code: number; stdout: Uint8Array; stderr: Uint8Array }> };
};

const t = denoSuiteApi();

t.describe('deno permissions', () => {
  t.it('runs a cached server and a CBOR value with --allow-net only, and prints no warning', async () => {
    const script = fileURLToPath(new URL('./fixtures/serve-no-env.ts', import.meta.url));
    const args = ['run', '--no-check', '--no-prompt', '--allow-net=127.0.0.1', script];
    const run = await new Deno.Command(Deno.execPath(), { args, stdout: 'piped', stderr: 'piped' }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    assert.equal(new TextDecoder().decode(run.stdout).trim(), ['hello fwd=uri-miss text/plain;charset=UTF-8', 'hello hit text/plain;charset=UTF-8', 'cbor true'].join('\n'));
    assert.equal(stderr, '', 'nothing on stderr: no permission prompt, no legacy-behaviour warning');
  });
});
