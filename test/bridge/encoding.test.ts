import assert from 'node:assert/strict';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Bridge } from '../../products/bridge/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { openBridge, post, uniqueName } from './bridge-client.ts';

const BASE64 = { 'upstash-encoding': 'base64' };
const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

// Upstash-Encoding: base64 makes string replies lossless; without it they are UTF-8 text.
describe.runIf(requireRedis())('upstash bridge: reply encoding', () => {
  let bridge: Bridge;
  let direct: Valkey;
  const run = uniqueName('enc');
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  beforeAll(async () => {
    bridge = await openBridge();
    direct = new Valkey(redisUrl!);
    // Raw bytes can only be written over RESP: JSON bodies carry text.
    await direct.set(`${run}:bin`, all);
    await direct.set(`${run}:txt`, 'héllo ✓');
    await direct.hset(`${run}:h`, { f1: 'v1', f2: 'v2' });
  });
  afterAll(async () => {
    await direct.del(`${run}:bin`, `${run}:txt`, `${run}:h`);
    direct.disconnect();
    await bridge.close();
  });

  it('base64-encodes a bulk string reply: every byte survives', async () => {
    const a = await post(bridge, '/', ['GET', `${run}:bin`], BASE64);
    assert.deepEqual(a.body, { result: b64(all) });
  });

  it('without the header, answers UTF-8 text', async () => {
    assert.deepEqual((await post(bridge, '/', ['GET', `${run}:txt`])).body, { result: 'héllo ✓' });
  });

  it('encodes recursively through arrays, leaves numbers, nil and "OK" as they are', async () => {
    const mget = await post(bridge, '/', ['MGET', `${run}:txt`, `${run}:absent`, `${run}:bin`], BASE64);
    assert.deepEqual(mget.body, { result: [b64('héllo ✓'), null, b64(all)] });
    // The server is shared with every other suite: a scan takes as many calls as its keys need.
    // The cursor is a bulk string, so it comes base64-encoded like the keys.
    const keys: string[] = [];
    let cursor = '0';
    for (let calls = 0; calls === 0 || cursor !== '0'; calls++) {
      assert.ok(calls < 1000, 'the scan ends');
      const scan = await post(bridge, '/', ['SCAN', cursor, 'MATCH', `${run}:h`, 'COUNT', 1000], BASE64);
      const [next, found] = (scan.body as { result: [string, string[]] }).result;
      assert.equal(typeof next, 'string');
      cursor = Buffer.from(next, 'base64').toString();
      keys.push(...found);
    }
    assert.deepEqual(keys, [b64(`${run}:h`)]);
    const pipe = await post(
      bridge,
      '/pipeline',
      [
        ['SET', `${run}:tmp`, 'v'],
        ['DEL', `${run}:tmp`],
        ['GET', `${run}:tmp`],
      ],
      BASE64,
    );
    assert.deepEqual(pipe.body, [{ result: 'OK' }, { result: 1 }, { result: null }]);
  });

  it('answers HGETALL as Redis does, a flat array, not an object', async () => {
    const a = await post(bridge, '/', ['HGETALL', `${run}:h`]);
    assert.deepEqual(a.body, { result: ['f1', 'v1', 'f2', 'v2'] });
  });

  it('encodes the results of a transaction too', async () => {
    const a = await post(
      bridge,
      '/multi-exec',
      [
        ['GET', `${run}:bin`],
        ['STRLEN', `${run}:bin`],
      ],
      BASE64,
    );
    assert.deepEqual(a.body, [{ result: b64(all) }, { result: 256 }]);
  });
});
