import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Bridge } from '../../products/bridge/index.ts';
import { requireRedis } from '../support/redis-env.ts';
import { openBridge, post, request, uniqueName } from './bridge-client.ts';

// What the bridge answers to requests it must refuse, and to the simplest one it must run.
describe.runIf(requireRedis())('upstash bridge: requests', () => {
  let bridge: Bridge;
  const key = uniqueName('req');
  beforeAll(async () => {
    bridge = await openBridge({ maxBodyBytes: 1024 });
  });
  afterAll(async () => {
    await post(bridge, '/', ['DEL', key]);
    await bridge.close();
  });

  it('runs one command and answers {result}', async () => {
    assert.deepEqual(await post(bridge, '/', ['SET', key, 'v']).then((a) => [a.status, a.body]), [200, { result: 'OK' }]);
    const got = await post(bridge, '/', ['get', key]);
    assert.equal(got.headers.get('content-type'), 'application/json');
    assert.deepEqual(got.body, { result: 'v' });
  });

  it('answers a command error with 400 {error}', async () => {
    const a = await post(bridge, '/', ['INCR', key]);
    assert.equal(a.status, 400);
    assert.match((a.body as { error: string }).error, /not an integer/);
  });

  it('turns number arguments into strings', async () => {
    assert.deepEqual((await post(bridge, '/', ['SET', key, 41])).body, { result: 'OK' });
    assert.deepEqual((await post(bridge, '/', ['INCRBY', key, 1])).body, { result: 42 });
  });

  it('refuses a missing, malformed or wrong token with 401', async () => {
    const body = JSON.stringify(['GET', key]);
    for (const authorization of [undefined, 'Basic abc', 'Bearer ', `Bearer ${bridge.token}x`, `Bearer ${bridge.token.slice(1)}`]) {
      const a = await request(bridge, '/', { method: 'POST', body, headers: authorization ? { authorization } : {} });
      assert.equal(a.status, 401, String(authorization));
      assert.match((a.body as { error: string }).error, /^Unauthorized/);
    }
  });

  it('answers an unknown path with 404 and a wrong method with 405', async () => {
    const unknown = await post(bridge, '/set/k/v', ['GET', key]);
    assert.equal(unknown.status, 404);
    assert.match((unknown.body as { error: string }).error, /unknown path \/set\/k\/v/);
    for (const path of ['/', '/pipeline', '/multi-exec']) {
      const a = await request(bridge, path, { method: 'GET', headers: { authorization: `Bearer ${bridge.token}` } });
      assert.equal(a.status, 405, path);
      assert.equal(a.headers.get('allow'), 'POST');
    }
  });

  it('refuses bodies that are not a command with 400 and says why', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/', '', /body is empty/],
      ['/', 'GET k', /not valid JSON/],
      ['/', '{"cmd":"GET"}', /non-empty JSON array/],
      ['/', '[]', /non-empty JSON array/],
      ['/', '[1,"k"]', /command name must be a non-empty string/],
      ['/', '["GET",null]', /argument 1 must be a string or a number, got null/],
      ['/', '["SET","k",{"a":1}]', /argument 2 must be a string or a number, got object/],
      ['/pipeline', '[]', /non-empty JSON array of commands/],
      ['/pipeline', '["GET","k"]', /command 1 must be a non-empty JSON array/],
      ['/multi-exec', '[["GET","k"],[true]]', /command 2: the command name/],
    ];
    for (const [path, body, error] of cases) {
      const a = await post(bridge, path, body);
      assert.equal(a.status, 400, `${path} ${body}`);
      assert.match((a.body as { error: string }).error, error, `${path} ${body}`);
    }
  });

  it('refuses a body over maxBodyBytes with 413, declared or streamed', async () => {
    const big = JSON.stringify(['SET', key, 'x'.repeat(2048)]);
    const declared = await post(bridge, '/', big);
    assert.equal(declared.status, 413);
    assert.match((declared.body as { error: string }).error, /exceeds the bridge's limit of 1024 bytes/);
    // A chunked body has no Content-Length: the limit applies while reading.
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const streamed = await request(bridge, '/', {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { authorization: `Bearer ${bridge.token}` },
    } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.deepEqual((await post(bridge, '/', ['GET', key])).body, { result: '42' }, 'nothing was written');
  });

  it('refuses commands that would block or change the shared connection', async () => {
    for (const command of [['BLPOP', key, 0], ['SUBSCRIBE', 'c'], ['SELECT', 1], ['MULTI'], ['CLIENT', 'REPLY', 'OFF'], ['XREAD', 'BLOCK', 0, 'STREAMS', key, '$']]) {
      const a = await post(bridge, '/', command);
      assert.equal(a.status, 400, String(command[0]));
      assert.match((a.body as { error: string }).error, /not available through the bridge/);
    }
    assert.deepEqual((await post(bridge, '/', ['XREAD', 'COUNT', 1, 'STREAMS', key + ':s', '0'])).body, { result: null }, 'a non-blocking XREAD runs');
  });
});

describe('upstash bridge: options', () => {
  it('refuses to start when Redis cannot be reached, and says where', async () => {
    await assert.rejects(openBridge({ redisUrl: 'redis://127.0.0.1:1' }), /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });

  it('refuses an empty or short token and a bad body limit', async () => {
    await assert.rejects(openBridge({ token: '' }), /"token" must be at least 16 characters of visible ASCII, .*got 0 characters/);
    await assert.rejects(openBridge({ token: 'dev-token' }), /"token" must be at least 16 characters of visible ASCII, .*got 9 characters/);
    await assert.rejects(openBridge({ token: 'sixteen chars ok' }), /got one with spaces, control or non-ASCII characters/);
    await assert.rejects(openBridge({ maxBodyBytes: 0 }), /"maxBodyBytes" must be a positive integer/);
  });
});
