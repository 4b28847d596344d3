/**
 * Issue 23, item 6: data commands whose cost a number in them sets. Each was accepted under
 * the default policy before: `SETRANGE k 67108863 x` grew Redis by 80 MiB, `LCS` of two 11 KB
 * strings cost 0.35 s of Redis each time, `SCAN 0 COUNT 100000000` walked the keyspace at once.
 * Through a real `cachette bridge` process in front of the suite's redis-server, which an
 * observer connection checks.
 */
import assert from 'node:assert/strict';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { spawnBridge, type BridgeProcess } from '../support/bridge-process.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { post, uniqueName } from './bridge-client.ts';

type Slot = { result: unknown } | { error: string };

const MIB = 1024 * 1024;

describe.runIf(requireRedis())('upstash bridge: commands that amplify', () => {
  let bridge: BridgeProcess;
  let observer: Valkey;
  const run = uniqueName('amplify');
  const k = (name: string) => `${run}:${name}`;
  beforeAll(async () => {
    bridge = await spawnBridge(redisUrl!, ['--max-body-bytes', String(MIB)]);
    observer = new Valkey(redisUrl!);
  });
  afterAll(async () => {
    const keys = await observer.keys(`${run}:*`);
    if (keys.length > 0) await observer.del(...keys);
    observer.disconnect();
    await bridge.stop();
  });

  it('refuses growth by offset beyond the body bound, and Redis allocates nothing (the reproduction)', async () => {
    for (const command of [
      ['SETRANGE', k('range'), 67108863, 'x'],
      ['SETBIT', k('bits'), 4294967295, 1],
      ['BITFIELD', k('field'), 'SET', 'u8', '#100000000', 1],
      ['BITFIELD', k('field'), 'GET', 'u8', 0, 'INCRBY', 'i64', 1e12, 1],
    ]) {
      const answer = await post(bridge, '/', command);
      assert.equal(answer.status, 403, String(command.slice(0, 2)));
      assert.match((answer.body as { error: string }).error, /could grow strings by \d+ bytes in this request; the bridge allows 1048576 per request \(--max-body-bytes\), or any with --allow-admin/);
    }
    assert.equal(await observer.exists(k('range'), k('bits'), k('field')), 0, 'nothing was created');
    const info = await observer.info('memory');
    assert.ok(Number(/used_memory:(\d+)/.exec(info)![1]) < 512 * MIB, 'the server did not grow by the offsets asked for');
  });

  it('lets offsets within the bound run, one bitmap counting once however many bits a pipeline sets', async () => {
    const setbits = Array.from({ length: 2000 }, (_, i) => ['SETBIT', k('daily'), 8 * (MIB - 1) - i * 97, 1]);
    const slots = (await post(bridge, '/pipeline', setbits)).body as Slot[];
    assert.ok(
      slots.every((slot) => 'result' in slot),
      JSON.stringify(slots.find((slot) => 'error' in slot)),
    );
    assert.equal(await observer.strlen(k('daily')), MIB);
    const within = await post(bridge, '/', ['SETRANGE', k('near'), MIB - 2, 'xy']);
    assert.equal(within.status, 200);
    assert.equal(await observer.strlen(k('near')), MIB);
    const get = await post(bridge, '/', ['BITFIELD', k('near'), 'GET', 'u8', '#99999999']);
    assert.equal(get.status, 200, 'a BITFIELD GET past the end allocates nothing');
  });

  it('sums growth over the keys of one request: a pipeline of small SETRANGEs to many keys stops at the bound', async () => {
    const commands = Array.from({ length: 64 }, (_, i) => ['SETRANGE', k(`many:${i}`), MIB / 8 - 1, 'x']);
    const slots = (await post(bridge, '/pipeline', commands)).body as Slot[];
    assert.deepEqual(
      slots.map((slot) => 'result' in slot),
      commands.map((_, i) => i < 8),
      'eight keys of 128 KiB fill the 1 MiB of one request; the rest are refused in their slots',
    );
    assert.equal(await observer.exists(...commands.map((c) => String(c[1]))), 8);
    const transaction = await post(bridge, '/multi-exec', commands.slice(0, 9));
    assert.equal(transaction.status, 403, 'a transaction over the bound runs nothing');
    const next = await post(bridge, '/', commands[20]!);
    assert.equal(next.status, 200, 'the bound is per request');
  });

  it('puts LCS behind --allow-admin', async () => {
    await observer.set(k('a'), 'x'.repeat(100));
    const lcs = await post(bridge, '/', ['LCS', k('a'), k('a')]);
    assert.equal(lcs.status, 403);
    assert.match((lcs.body as { error: string }).error, /--allow-admin/);
  });

  it('bounds SCAN-family COUNT, reading options as Redis does', async () => {
    await observer.hset(k('h'), 'f', 'v');
    for (const command of [
      ['SCAN', 0, 'COUNT', 100000000],
      ['SCAN', 0, 'MATCH', '*', 'COUNT', 10, 'COUNT', 1001],
      ['HSCAN', k('h'), 0, 'COUNT', 5000],
      ['SSCAN', k('s'), 0, 'count', 5000],
      ['ZSCAN', k('z'), 0, 'COUNT', 'lots'],
    ]) {
      const answer = await post(bridge, '/', command);
      assert.equal(answer.status, 403, command.join(' '));
    }
    for (const command of [
      ['SCAN', 0, 'COUNT', 1000],
      ['SCAN', 0, 'MATCH', 'COUNT', 'COUNT', 500],
      ['HSCAN', k('h'), 0, 'MATCH', 'f*', 'COUNT', 10],
    ]) {
      const answer = await post(bridge, '/', command);
      assert.equal(answer.status, 200, command.join(' '));
    }
  });

  it('bounds repeating random picks, not distinct ones', async () => {
    await observer.sadd(k('set'), 'only');
    await observer.zadd(k('zset'), 1, 'only');
    await observer.hset(k('hash'), 'only', 'v');
    for (const name of ['SRANDMEMBER', 'ZRANDMEMBER', 'HRANDFIELD']) {
      const key = k(name === 'SRANDMEMBER' ? 'set' : name === 'ZRANDMEMBER' ? 'zset' : 'hash');
      const repeated = await post(bridge, '/', [name, key, -100000000]);
      assert.equal(repeated.status, 403, name);
      assert.match((repeated.body as { error: string }).error, /at most 1000 repeated picks/);
      assert.deepEqual((await post(bridge, '/', [name, key, -1000])).body, { result: Array(1000).fill('only') }, name);
      assert.deepEqual((await post(bridge, '/', [name, key, 100000000])).body, { result: ['only'] }, `${name}: a positive count is the collection at most`);
    }
  });

  it('refuses COPY into another database', async () => {
    await observer.set(k('src'), 'v');
    const other = await post(bridge, '/', ['COPY', k('src'), k('dst'), 'db', 1]);
    assert.equal(other.status, 403);
    const same = await post(bridge, '/', ['COPY', k('src'), k('dst')]);
    assert.deepEqual(same.body, { result: 1 });
  });

  it('lifts every bound under --allow-admin', async () => {
    const admin = await spawnBridge(redisUrl!, ['--max-body-bytes', String(MIB), '--allow-admin']);
    try {
      assert.equal((await post(admin, '/', ['SETRANGE', k('admin'), 2 * MIB, 'x'])).status, 200);
      assert.equal((await post(admin, '/', ['SCAN', 0, 'COUNT', 5000])).status, 200);
      assert.equal((await post(admin, '/', ['LCS', k('a'), k('a'), 'LEN'])).status, 200);
    } finally {
      await admin.stop();
    }
  });
});
