/**
 * Issue 23, item 17: command names that JavaScript's case mappings turn into other names.
 * "ſelect" was checked lower-cased (as itself: unlisted, so allowed under --allow-admin) and
 * sent upper-cased (SELECT), which switched the connection every request shares to another
 * database; "ſcript load" and "EVALſHA" ran a script without --allow-eval. Against a real
 * `cachette bridge` process in front of the suite's redis-server.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { spawnBridge, type BridgeProcess } from '../support/bridge-process.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { post, uniqueName } from './bridge-client.ts';

describe.runIf(requireRedis())('upstash bridge: command names', () => {
  let bridge: BridgeProcess;
  let observer: Valkey;
  const run = uniqueName('names');
  const k = (name: string) => `${run}:${name}`;
  beforeAll(async () => {
    bridge = await spawnBridge(redisUrl!, ['--allow-admin']);
    observer = new Valkey(redisUrl!);
  });
  afterAll(async () => {
    await observer.del(k('after'), k('script'));
    observer.disconnect();
    await bridge.stop();
  });

  it('refuses non-ASCII names, so that ſelect switches no database (the reproduction)', async () => {
    for (const name of ['ſelect', 'ſELECT', 'SELECT\u0130', 'multı', 'ſubscribe']) {
      const answer = await post(bridge, '/', [name, 1]);
      assert.equal(answer.status, 400, name);
      assert.match((answer.body as { error: string }).error, /is not visible ASCII, as every Redis command name is/, name);
    }
    await post(bridge, '/', ['SET', k('after'), 'db0']);
    assert.equal(await observer.get(k('after')), 'db0', 'the shared connection is still on its own database');
    assert.equal((await post(bridge, '/', ['select', 1])).status, 400, 'the ASCII name is refused as before');
  });

  it('runs no script without --allow-eval, whatever the spelling', async () => {
    const source = `redis.call('SET', KEYS[1], 'ran') return 1`;
    const sha = createHash('sha1').update(source).digest('hex');
    const load = await post(bridge, '/', ['ſcript', 'load', source]);
    assert.equal(load.status, 400);
    const loadAscii = await post(bridge, '/', ['script', 'LOAD', source]);
    assert.equal(loadAscii.status, 403, 'SCRIPT LOAD of a foreign script needs --allow-eval');
    await observer.script('LOAD', source);
    for (const name of ['EVALſHA', 'evalſha_ro']) assert.equal((await post(bridge, '/', [name, sha, 1, k('script')])).status, 400, name);
    assert.equal((await post(bridge, '/', ['EvalSha', sha, 1, k('script')])).status, 403);
    assert.equal(await observer.exists(k('script')), 0, 'the script never ran');
  });

  it('sends the name it checked: mixed ASCII case still runs as the command it names', async () => {
    assert.deepEqual((await post(bridge, '/', ['sEt', k('after'), 'mixed'])).body, { result: 'OK' });
    assert.equal(await observer.get(k('after')), 'mixed');
    // Under the default policy the data list decides, on the same name.
    const plain = await spawnBridge(redisUrl!);
    try {
      assert.equal((await post(plain, '/', ['fLuShAlL'])).status, 403);
      assert.equal((await post(plain, '/', ['\u212Aeys', '*'])).status, 400, 'the Kelvin sign, which lower-cases to k, is not ASCII');
    } finally {
      await plain.stop();
    }
  });
});
