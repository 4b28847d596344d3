/**
 * Issue 30, item 2 (target): examples/nitro as a user gets it. The packed tarball (packed once
 * for every package check) installed into
 * a fresh app with Nitro 3 (the checkout's, linked: nothing from the network), the example's
 * files copied in, `nitro build`, then the built server (`node .output/server/index.mjs`) over a
 * real redis-server. Its `defineCachedFunction` goes through cachette/unstorage (the `cache`
 * mount): a second call is a hit, the entry is in cachette's key space on Valkey, and
 * `cache.invalidateTags(['greetings'])` (the example's POST /invalidate) makes the next call
 * compute again. The redis-server is this file's own; the server is killed when the test ends,
 * and by a watchdog if the runner dies.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { copyAppFiles } from '../next/next-app.ts';
import { installPacked } from '../support/packed-package.ts';
import { freePort, startRedis, type RedisServer } from '../support/redis-server.ts';
import { watchChildren, type ChildWatch } from '../support/watchdog.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
/** The variables that would pick a store or change how Node runs: never inherited. */
const SCRUBBED = /^(REDIS_|VALKEY_|UPSTASH_|CACHETTE_|NODE_OPTIONS$)/;

let work: string;
let server: ChildProcess | undefined;
let watch: ChildWatch | undefined;
let base: string;
let redis: RedisServer | undefined;
const output: string[] = [];

/** The `computed` of the greeting for `name` the store holds (Nitro's entry, as unstorage wrote it), if any. */
async function storedComputed(name: string): Promise<number | undefined> {
  const cache = createCache({ store: valkeyStore(redis!.url), prefix: 'nitro-example' });
  try {
    for await (const key of cache.keys('nitro:functions:greeting:')) {
      const stored = await cache.get<unknown>(key);
      const entry = (typeof stored === 'string' ? JSON.parse(stored) : stored) as { value?: { text?: string; computed?: number } } | undefined;
      if (entry?.value?.text === `Hello, ${name}`) return entry.value.computed;
    }
    return undefined;
  } finally {
    await cache.close();
  }
}

/**
 * Nitro writes a cached function's value in the background, after its response: the next call
 * (or an invalidation) may overtake that write. Waits until the store holds `greeting`.
 */
async function untilStored(name: string, greeting: { computed: number }): Promise<void> {
  for (let tries = 0; (await storedComputed(name)) !== greeting.computed; tries++) {
    assert.ok(tries < 200, `the greeting for ${name} computed as #${greeting.computed} was never stored`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function greeting(name: string): Promise<{ text: string; computed: number }> {
  const response = await fetch(`${base}/greeting?name=${name}`, { signal: AbortSignal.timeout(15_000) });
  assert.equal(response.status, 200, output.join('\n'));
  return (await response.json()) as { text: string; computed: number };
}

describe('examples/nitro: Nitro 3 with its cache mount on cachette/unstorage', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-nitro-'));
    const app = join(work, 'app');
    redis = await startRedis();
    // Nitro 3's own unstorage (2.0 alpha) is the app's: the one its storage and the driver share.
    installPacked(inject('packed').path, app, root, ['cbor-x', 'fflate', 'iovalkey', 'nitro', { name: 'unstorage', from: 'nitro/node_modules/unstorage' }]);
    copyAppFiles(join(root, 'examples', 'nitro'), app);
    const env: NodeJS.ProcessEnv = { NITRO_TELEMETRY_DISABLED: '1' };
    for (const [name, value] of Object.entries(process.env)) if (!SCRUBBED.test(name)) env[name] = value;
    await run(process.execPath, [join(app, 'node_modules', 'nitro', 'dist', 'cli', 'index.mjs'), 'build'], { cwd: app, env, timeout: 240_000 });
    const port = await freePort();
    server = spawn(process.execPath, [join(app, '.output', 'server', 'index.mjs')], {
      cwd: app,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: redis.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    watch = watchChildren([server.pid!]);
    for (const stream of [server.stdout, server.stderr]) stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    base = `http://127.0.0.1:${port}`;
    const until = Date.now() + 60_000;
    while (
      !(await fetch(`${base}/greeting?name=ready`).then(
        (response) => response.ok,
        () => false,
      ))
    ) {
      assert.ok(server.exitCode === null, `the server exited:\n${output.join('')}`);
      assert.ok(Date.now() < until, `the server did not answer within 60 s:\n${output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 600_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    watch?.release();
    await redis?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('serves the cached function from the store: the second call is a hit', async () => {
    const first = await greeting('ada');
    assert.equal(first.text, 'Hello, ada');
    await untilStored('ada', first);
    assert.deepEqual(await greeting('ada'), first);
  });

  it('keeps the entry in cachette’s key space on Valkey, under the example’s prefix', async () => {
    await greeting('grace');
    const cache = createCache({ store: valkeyStore(redis!.url), prefix: 'nitro-example' });
    const keys: string[] = [];
    for await (const key of cache.keys('nitro:functions:greeting:')) keys.push(key);
    await cache.close();
    assert.ok(keys.length >= 2, `the greeting entries are not on the store: ${keys.join(', ')}`);
    assert.ok(
      keys.every((key) => key.endsWith('.json')),
      keys.join(', '),
    );
  });

  it('is invalidated by a cachette tag: after invalidateTags(["greetings"]) the next call computes again', async () => {
    const before = await greeting('linus');
    await untilStored('linus', before);
    assert.deepEqual(await greeting('linus'), before);
    const response = await fetch(`${base}/invalidate`, { method: 'POST' });
    assert.deepEqual(await response.json(), { invalidated: true });
    const after = await greeting('linus');
    assert.equal(after.text, 'Hello, linus');
    assert.ok(after.computed > before.computed, `still the entry computed as #${before.computed}`);
    await untilStored('linus', after);
    assert.deepEqual(await greeting('linus'), after, 'the recomputed value is cached again');
  });
});
