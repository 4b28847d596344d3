import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Bridge } from '../../products/bridge/index.ts';
import { requireRedis } from '../support/redis-env.ts';
import { openBridge, post, uniqueName } from './bridge-client.ts';

type Slot = { result: unknown } | { error: string };

// /pipeline and /multi-exec: order, per-command errors, and what a transaction guarantees.
describe.runIf(requireRedis())('upstash bridge: pipelines and transactions', () => {
  let bridge: Bridge;
  const k = (name: string) => `${run}:${name}`;
  const run = uniqueName('batch');
  beforeAll(async () => {
    bridge = await openBridge();
  });
  afterAll(async () => {
    await post(bridge, '/', ['DEL', ...['p', 's', 't', 'x', 'ab'].map(k)]);
    await bridge.close();
  });

  it('answers a pipeline in command order, each command with its own result or error', async () => {
    const a = await post(bridge, '/pipeline', [['SET', k('p'), 'one'], ['INCR', k('p')], ['GET', k('p')], ['GET'], ['RPUSH', k('x'), 'a', 'b'], ['BLPOP', k('x'), 0], ['LRANGE', k('x'), 0, -1]]);
    assert.equal(a.status, 200);
    const slots = a.body as Slot[];
    assert.equal(slots.length, 7);
    assert.deepEqual(slots[0], { result: 'OK' });
    assert.match((slots[1] as { error: string }).error, /not an integer/);
    assert.deepEqual(slots[2], { result: 'one' }, 'a failed command does not stop the next');
    assert.match((slots[3] as { error: string }).error, /wrong number of arguments/);
    assert.deepEqual(slots[4], { result: 2 });
    assert.match((slots[5] as { error: string }).error, /not available through the bridge/, 'a refused command fails only its slot');
    assert.deepEqual(slots[6], { result: ['a', 'b'] });
  });

  it('keeps each pipeline in order when many run at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(bridge, '/pipeline', [
          ['SET', k(`s`), `v${i}`],
          ['ECHO', `a${i}`],
          ['ECHO', `b${i}`],
        ]),
      ),
    );
    answers.forEach((a, i) => assert.deepEqual(a.body, [{ result: 'OK' }, { result: `a${i}` }, { result: `b${i}` }]));
  });

  it('runs a transaction: every result in order, a runtime error only in its slot', async () => {
    const a = await post(bridge, '/multi-exec', [
      ['SET', k('t'), 'x'],
      ['INCR', k('t')],
      ['APPEND', k('t'), 'y'],
      ['GET', k('t')],
    ]);
    assert.equal(a.status, 200);
    const slots = a.body as Slot[];
    assert.deepEqual(slots[0], { result: 'OK' });
    assert.match((slots[1] as { error: string }).error, /not an integer/);
    assert.deepEqual(slots.slice(2), [{ result: 2 }, { result: 'xy' }]);
  });

  it('aborts the whole transaction when a command is rejected while queueing (400, nothing applied)', async () => {
    await post(bridge, '/', ['SET', k('ab'), 'before']);
    const a = await post(bridge, '/multi-exec', [['SET', k('ab'), 'after'], ['GET']]);
    assert.equal(a.status, 400);
    assert.match((a.body as { error: string }).error, /EXECABORT.*wrong number of arguments/);
    assert.deepEqual((await post(bridge, '/', ['GET', k('ab')])).body, { result: 'before' });
  });

  it('refuses a transaction holding a command that may not run through the bridge', async () => {
    const a = await post(bridge, '/multi-exec', [
      ['SET', k('ab'), 'after'],
      ['SUBSCRIBE', 'c'],
    ]);
    assert.equal(a.status, 400);
    assert.match((a.body as { error: string }).error, /'subscribe' is not available/);
    assert.deepEqual((await post(bridge, '/', ['GET', k('ab')])).body, { result: 'before' });
  });

  it('never lets a concurrent write land inside a transaction', async () => {
    // Writers hammer the key while transactions set, increment and read it: each transaction
    // must read exactly its own 1 + 1, whatever the writers do in between.
    await post(bridge, '/', ['SET', k('x'), '0']);
    const writers = Array.from({ length: 60 }, (_, i) => post(bridge, '/', ['SET', k('x'), String(1000 + i)]));
    const transactions = Array.from({ length: 60 }, () =>
      post(bridge, '/multi-exec', [
        ['SET', k('x'), '1'],
        ['INCR', k('x')],
        ['GET', k('x')],
      ]),
    );
    const [, answers] = await Promise.all([Promise.all(writers), Promise.all(transactions)]);
    for (const a of answers) assert.deepEqual(a.body, [{ result: 'OK' }, { result: 2 }, { result: '2' }]);
  });
});
