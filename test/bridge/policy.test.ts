/**
 * Issue 10, item 11: the bridge's command policy and body bounds. Each refusal below was
 * accepted before, with a valid token (SHUTDOWN stopped Redis; 10 MB of nested arrays took the
 * bridge's RSS to 615 MB).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Redis } from '@upstash/redis';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import * as redisProtocol from '../../adapters/shared/redis-protocol.ts';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { STORE_SCRIPTS, type Bridge } from '../../products/bridge/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { openBridge, post, uniqueName } from './bridge-client.ts';

type Slot = { result: unknown } | { error: string };

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

// Admin commands as the issue sent them. None may run: they would stop or wipe the server
// every other test file shares.
const ADMIN: Array<Array<string | number>> = [
  ['FLUSHALL'],
  ['FLUSHDB'],
  ['CONFIG', 'SET', 'maxmemory', '1'],
  ['SHUTDOWN', 'NOSAVE'],
  ['SAVE'],
  ['SWAPDB', 0, 1],
  ['REPLICAOF', '127.0.0.1', 1],
  ['ACL', 'SETUSER', 'evil', 'on', '>pw', '+@all'],
  ['KEYS', '*'],
  ['SCRIPT', 'FLUSH'],
  ['DEBUG', 'SLEEP', 10],
  ['FUNCTION', 'FLUSH'],
];

describe.runIf(requireRedis())('upstash bridge: command policy', () => {
  let bridge: Bridge;
  let observer: Valkey;
  const run = uniqueName('policy');
  const k = (name: string) => `${run}:${name}`;
  beforeAll(async () => {
    bridge = await openBridge();
    observer = new Valkey(redisUrl!);
    await observer.set(k('sentinel'), 'still here');
  });
  afterAll(async () => {
    await observer.del(k('sentinel'), k('lease'), k('h'));
    observer.disconnect();
    await bridge.close();
  });

  it('refuses admin commands and foreign scripts with 403, one command at a time (the reproduction)', async () => {
    for (const command of [...ADMIN, ['EVAL', "return redis.call('FLUSHALL')", 0]]) {
      const a = await post(bridge, '/', command);
      assert.equal(a.status, 403, String(command[0]));
      assert.match((a.body as { error: string }).error, /--allow-(admin|eval)/, String(command[0]));
    }
    assert.equal(await observer.get(k('sentinel')), 'still here', 'nothing was flushed');
    assert.equal(await observer.ping(), 'PONG', 'Redis is still up');
    assert.equal(await observer.config('GET', 'maxmemory').then((r) => (r as string[])[1]), '0', 'nothing was reconfigured');
  });

  it('refuses them in pipelines slot by slot, and a transaction holding one as a whole', async () => {
    const slots = (await post(bridge, '/pipeline', [['GET', k('sentinel')], ['FLUSHDB'], ['EVAL', 'return 1', 0]])).body as Slot[];
    assert.deepEqual(slots[0], { result: 'still here' });
    assert.match((slots[1] as { error: string }).error, /not allowed through the bridge/);
    assert.match((slots[2] as { error: string }).error, /--allow-eval/);
    const tx = await post(bridge, '/multi-exec', [['SET', k('sentinel'), 'overwritten'], ['FLUSHALL']]);
    assert.equal(tx.status, 403);
    assert.equal(await observer.get(k('sentinel')), 'still here');
  });

  it("runs the stores' own script by body, by SHA and through SCRIPT LOAD, as the upstash store sends it", async () => {
    const [script] = STORE_SCRIPTS;
    const store = upstashStore({ url: bridge.url, token: bridge.token });
    await store.set(k('lease'), new TextEncoder().encode('token-1'));
    assert.equal(await store.compareAndDelete(k('lease'), new TextEncoder().encode('token-1')), true);
    assert.deepEqual((await post(bridge, '/', ['SCRIPT', 'LOAD', script!])).body, { result: sha1(script!) });
    assert.deepEqual((await post(bridge, '/', ['SCRIPT', 'EXISTS', sha1(script!), sha1('other')])).body, { result: [1, 0] });
    assert.deepEqual((await post(bridge, '/', ['EVALSHA', sha1(script!).toUpperCase(), 1, k('lease'), 'x'])).body, { result: 0 });
    assert.equal((await post(bridge, '/', ['SCRIPT', 'LOAD', 'return 1'])).status, 403);
    assert.equal((await post(bridge, '/', ['EVALSHA', sha1('return 1'), 0])).status, 403);
  });

  it('knows every Lua script the stores share (adapters/shared/redis-protocol.ts)', () => {
    const scripts = Object.entries(redisProtocol)
      .filter(([name]) => name.endsWith('_LUA'))
      .map(([, value]) => value);
    assert.ok(scripts.length > 0);
    for (const script of scripts) assert.ok(STORE_SCRIPTS.includes(script as string), String(script).slice(0, 40));
  });

  it('surfaces a refusal through @upstash/redis as a clear error', async () => {
    const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false, enableAutoPipelining: false });
    await assert.rejects(redis.flushall(), /not allowed through the bridge.*--allow-admin/);
    await assert.rejects(redis.keys('*'), /--allow-admin/);
    assert.equal(await redis.get(k('sentinel')), 'still here');
  });

  it('with allowAdmin runs admin commands, and still neither foreign scripts nor connection state', async () => {
    const admin = await openBridge({ allowAdmin: true });
    try {
      assert.deepEqual((await post(admin, '/', ['KEYS', k('sentinel')])).body, { result: [k('sentinel')] });
      assert.equal((await post(admin, '/', ['CONFIG', 'GET', 'maxmemory'])).status, 200);
      assert.equal((await post(admin, '/', ['EVAL', 'return 1', 0])).status, 403);
      assert.equal((await post(admin, '/', ['SELECT', 1])).status, 400);
    } finally {
      await admin.close();
    }
  });

  it('with allowEval runs any script, and still no admin command', async () => {
    const scripting = await openBridge({ allowEval: true });
    try {
      assert.deepEqual((await post(scripting, '/', ['EVAL', 'return 7', 0])).body, { result: 7 });
      assert.equal((await post(scripting, '/', ['SCRIPT', 'LOAD', 'return 8'])).status, 200);
      assert.equal((await post(scripting, '/', ['FLUSHDB'])).status, 403);
    } finally {
      await scripting.close();
    }
  });
});

describe.runIf(requireRedis())('upstash bridge: body bounds', () => {
  let bridge: Bridge;
  const key = uniqueName('bounds');
  beforeAll(async () => {
    bridge = await openBridge({ maxCommands: 50 });
  });
  afterAll(async () => {
    await post(bridge, '/', ['DEL', key]);
    await bridge.close();
  });

  it('refuses 10 MB of nested arrays without building them (the reproduction)', async () => {
    const half = 5 * 1024 * 1024;
    const nested = '['.repeat(half) + ']'.repeat(half);
    const before = process.memoryUsage().rss;
    for (const path of ['/', '/pipeline', '/multi-exec']) {
      const a = await post(bridge, path, nested);
      assert.equal(a.status, 400, path);
      assert.match((a.body as { error: string }).error, /nests deeper than the protocol allows/, path);
    }
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    assert.ok(grown < 200, `RSS grew by ${grown.toFixed(0)} MB`);
  });

  it('refuses a batch above maxCommands, and runs one at the bound', async () => {
    const over = await post(
      bridge,
      '/pipeline',
      Array.from({ length: 51 }, () => ['INCR', key]),
    );
    assert.equal(over.status, 400);
    assert.match((over.body as { error: string }).error, /more than 50 commands/);
    const at = await post(
      bridge,
      '/pipeline',
      Array.from({ length: 50 }, () => ['INCR', key]),
    );
    assert.equal((at.body as Slot[]).length, 50);
    assert.deepEqual((at.body as Slot[])[49], { result: 50 }, 'the refused batch ran nothing');
  });

  it('does not count brackets inside strings', async () => {
    const tricky = '[[{"\\"]]]]';
    assert.deepEqual((await post(bridge, '/', ['SET', key, tricky])).body, { result: 'OK' });
    assert.deepEqual((await post(bridge, '/', ['GET', key])).body, { result: tricky });
  });

  it('refuses a bad maxCommands when it starts', async () => {
    await assert.rejects(openBridge({ maxCommands: 0 }), /"maxCommands" must be a positive integer/);
  });
});
