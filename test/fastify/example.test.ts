/**
 * examples/fastify, run as its README says (tsx on the example, a real HTTP server, the store
 * from the environment: memory here): /api is cached, / is not, a POST invalidates, a DELETE of
 * /api/cache purges by tag, and SIGTERM closes everything so that the process exits by itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
// No store server named in the environment: the example picks memory and says so.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VALKEY|REDIS|UPSTASH|CACHETTE)_/.test(name)));

describe('examples/fastify', () => {
  const output: string[] = [];
  const child = spawn(tsx, ['examples/fastify/server.ts'], { cwd: root, env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(...chunk.toString().split('\n').filter(Boolean));
      const address = output.join('\n').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (address) resolve(address[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`the example exited (${String(code)}) before listening:\n${output.join('\n')}`)));
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('caches /api, leaves / alone, invalidates on POST, purges by tag, and exits on SIGTERM', async () => {
    const base = await listening;
    const get = async (path: string, init?: RequestInit) => {
      const res = await fetch(base + path, init);
      return { status: res.status, body: await res.text(), cs: res.headers.get('cache-status') ?? '' };
    };
    const first = await get('/api/products/1');
    assert.equal(JSON.parse(first.body).name, 'Product 1');
    assert.match(first.cs, /fwd=uri-miss/);
    // The store write runs after the answer: the next request finds it once it landed.
    let hit = await get('/api/products/1');
    while (!/; hit/.test(hit.cs)) hit = await get('/api/products/1');
    assert.equal(hit.body, first.body);
    const report = await get('/api/report');
    assert.match(report.body, /^line 1 at [\s\S]*line 5 at .*\n$/);
    let storedReport = await get('/api/report');
    while (!/; hit/.test(storedReport.cs)) storedReport = await get('/api/report');
    assert.equal(storedReport.body, report.body, 'the streamed report was stored whole');
    assert.equal((await get('/')).cs, '', '/ is outside the /api context');
    assert.equal((await get('/api/products/1', { method: 'POST' })).status, 204);
    assert.match((await get('/api/products/1')).cs, /fwd=uri-miss/, 'the POST invalidated the stored product');
    assert.deepEqual(JSON.parse((await get('/api/cache', { method: 'DELETE' })).body), { purged: 1 });
    assert.doesNotMatch((await get('/api/report')).cs, /; hit/, 'the tag purge reached the report');
    assert.match(output.join('\n'), /memory/i, 'the example names the store it chose');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output.join('\n'));
  }, 60_000);
});
