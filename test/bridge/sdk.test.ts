import assert from 'node:assert/strict';
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Bridge } from '../../products/bridge/index.ts';
import { requireRedis } from '../support/redis-env.ts';
import { openBridge, uniqueName } from './bridge-client.ts';

// @upstash/redis, configured as its users configure it (base64 replies, JSON deserialization,
// auto-pipelining), talking to the bridge: the protocol as the SDK really uses it.
describe.runIf(requireRedis())('upstash bridge: @upstash/redis against it', () => {
  let bridge: Bridge;
  let redis: Redis;
  const run = uniqueName('sdk');
  const k = (name: string) => `${run}:${name}`;
  beforeAll(async () => {
    bridge = await openBridge();
    redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
  });
  afterAll(async () => {
    await redis.del(...['s', 'o', 'n', 'h', 'p', 'm'].map(k));
    await bridge.close();
  });

  it('round-trips strings, JSON values and counters', async () => {
    await redis.set(k('s'), 'héllo ✓ 🗝');
    assert.equal(await redis.get(k('s')), 'héllo ✓ 🗝');
    await redis.set(k('o'), { a: [1, 'two'], b: null });
    assert.deepEqual(await redis.get(k('o')), { a: [1, 'two'], b: null });
    assert.equal(await redis.incrby(k('n'), 5), 5);
    assert.deepEqual(await redis.mget(k('s'), k('absent'), k('n')), ['héllo ✓ 🗝', null, 5]);
  });

  it('reads hashes, scans and runs scripts', async () => {
    await redis.hset(k('h'), { f: 'v', g: 2 });
    assert.deepEqual(await redis.hgetall(k('h')), { f: 'v', g: 2 });
    // The server is shared with every other suite: a scan takes as many calls as its keys need.
    const keys: string[] = [];
    let cursor: string | number = 0;
    for (let calls = 0; calls === 0 || cursor !== '0'; calls++) {
      assert.ok(calls < 1000, 'the scan ends');
      const [next, found]: [string, string[]] = await redis.scan(cursor, { match: `${run}:h`, count: 1000 });
      cursor = next;
      keys.push(...found);
    }
    assert.deepEqual(keys, [k('h')]);
    // Not one of the stores' scripts: refused unless the bridge runs with allowEval.
    const script = 'return redis.call("HLEN", KEYS[1])';
    await assert.rejects(redis.eval(script, [k('h')], []), /--allow-eval/);
    const open = await openBridge({ allowEval: true });
    try {
      const trusting = new Redis({ url: open.url, token: open.token, enableTelemetry: false });
      assert.equal(await trusting.eval(script, [k('h')], []), 2);
    } finally {
      await open.close();
    }
  });

  it('runs explicit pipelines, transactions and same-tick auto-pipelines', async () => {
    const p = await redis.pipeline().set(k('p'), 'a').append(k('p'), 'b').get(k('p')).exec();
    assert.deepEqual(p, ['OK', 2, 'ab']);
    const m = await redis.multi().set(k('m'), 1).incr(k('m')).get(k('m')).exec();
    assert.deepEqual(m, ['OK', 2, 2]);
    const before = (redis as unknown as { pipelineCounter: number }).pipelineCounter;
    const same = await Promise.all([redis.get(k('p')), redis.get(k('m')), redis.exists(k('p'), k('m'))]);
    assert.deepEqual(same, ['ab', 2, 2]);
    assert.equal((redis as unknown as { pipelineCounter: number }).pipelineCounter, before + 1, 'three calls, one /pipeline request');
  });

  it('throws the command error, and refuses a wrong token', async () => {
    await assert.rejects(redis.incr(k('p')), /not an integer/);
    await assert.rejects(redis.pipeline().set(k('p'), 'x').incr(k('p')).exec(), /Command 2 \[ incr \] failed: .*not an integer/);
    const stranger = new Redis({ url: bridge.url, token: 'wrong', enableTelemetry: false, enableAutoPipelining: false });
    await assert.rejects(stranger.get(k('s')), /Unauthorized: invalid token/);
  });
});
