/**
 * examples/koa, examples/h3 (tsx on Node) and examples/elysia (on Bun), run as their READMEs say:
 * a real HTTP server each, the store from the environment (memory here). A product is a miss,
 * then a hit; a POST to its URL drops it; SIGTERM closes everything so that the process exits.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const bun = fileURLToPath(new URL('../../node_modules/.bin/bun', import.meta.url));
// No store server named in the environment: the examples pick memory and say so.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VALKEY|REDIS|UPSTASH|CACHETTE)_/.test(name)));

const EXAMPLES = [
  { name: 'koa', command: tsx },
  { name: 'h3', command: tsx },
  { name: 'elysia', command: bun },
];

describe('the Koa, h3 and Elysia examples', () => {
  for (const { name, command } of EXAMPLES) {
    it(`examples/${name}: a miss, then a hit; a POST drops it; exits on SIGTERM`, async () => {
      const output: string[] = [];
      const child = spawn(command, [`examples/${name}/server.ts`], { cwd: root, env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const onData = (chunk: Buffer) => {
            output.push(...chunk.toString().split('\n').filter(Boolean));
            const address = output.join('\n').match(/listening on (http:\/\/127\.0\.0\.1:\d+\/api\/products\/1)/);
            if (address) resolve(address[1]!);
          };
          child.stdout.on('data', onData);
          child.stderr.on('data', onData);
          void exited.then((code) => reject(new Error(`the example exited (${String(code)}) before listening:\n${output.join('\n')}`)));
        });
        const get = async (init?: RequestInit) => {
          const res = await fetch(url, init);
          return { status: res.status, body: await res.text(), cs: res.headers.get('cache-status') ?? '' };
        };
        const first = await get();
        assert.equal(JSON.parse(first.body).name, 'Product 1');
        assert.match(first.cs, /fwd=uri-miss/);
        // The store write runs after the answer: the next request finds it once it landed.
        let hit = await get();
        while (!/; hit/.test(hit.cs)) hit = await get();
        assert.equal(hit.body, first.body);
        assert.equal((await get({ method: 'POST' })).status, 204);
        assert.match((await get()).cs, /fwd=uri-miss/, 'the POST dropped the stored product');
        assert.match(output.join('\n'), /memory/i, 'the example names the store it chose');
        child.kill('SIGTERM');
        assert.equal(await exited, 0, output.join('\n'));
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 60_000);
  }
});
