import assert from 'node:assert/strict';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Bridge } from '../../products/bridge/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { startRedis } from '../support/redis-server.ts';
import { openBridge, post, uniqueName } from './bridge-client.ts';

// The bridge holds ONE Redis connection, whatever the HTTP concurrency, and says so when
// that connection is gone.
describe.runIf(requireRedis())('upstash bridge: the Redis connection', () => {
  let bridge: Bridge;
  let observer: Valkey;
  const name = uniqueName('conn');
  beforeAll(async () => {
    bridge = await openBridge({ connectionName: name });
    observer = new Valkey(redisUrl!);
  });
  afterAll(async () => {
    observer.disconnect();
    await bridge.close();
  });

  const bridgeConnections = async () => ((await observer.client('LIST')) as string).split('\n').filter((line) => line.includes(` name=${name} `)).length;

  it('serves 300 concurrent requests over a single connection', async () => {
    assert.equal(await bridgeConnections(), 1);
    const key = `${name}:n`;
    const requests = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 0
        ? post(bridge, '/pipeline', [
            ['INCR', key],
            ['ECHO', String(i)],
          ])
        : i % 3 === 1
          ? post(bridge, '/', ['INCR', key])
          : post(bridge, '/multi-exec', [
              ['INCR', key],
              ['ECHO', String(i)],
            ]),
    );
    // Count while the requests are in flight as well as after.
    const during = bridgeConnections();
    const answers = await Promise.all(requests);
    assert.equal(await during, 1);
    assert.equal(await bridgeConnections(), 1);
    assert.ok(answers.every((a) => a.status === 200));
    assert.deepEqual((await post(bridge, '/', ['GET', key])).body, { result: '300' });
    await post(bridge, '/', ['DEL', key]);
  });

  it('answers 502 with the cause when Redis goes away, and closes cleanly', async () => {
    const server = await startRedis();
    const errors: Error[] = [];
    const own = await openBridge({ redisUrl: server.url, onRedisError: (e) => errors.push(e) });
    assert.deepEqual((await post(own, '/', ['PING'])).body, { result: 'PONG' });
    await server.stop();
    const a = await post(own, '/', ['PING']);
    assert.equal(a.status, 502);
    assert.match((a.body as { error: string }).error, /^Redis is unavailable: /);
    assert.ok(errors.length > 0, 'connection errors reach onRedisError');
    await own.close();
  });
});
