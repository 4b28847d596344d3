/** Bodies streamed, stored and shared, and malformed input read safely. */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import { numbered, ownCacheStatus, SECOND, type ScenarioFn } from './harness.ts';

export function bodyScenarios(scenario: ScenarioFn): void {
  scenario('streams the body to the client before the origin finishes, and stores the complete copy', {}, async ({ origin, get, cache }) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const enc = new TextEncoder();
    origin.on(
      '/stream',
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(c) {
              c.enqueue(enc.encode('first;'));
              await released;
              c.enqueue(enc.encode('second'));
              c.close();
            },
          }),
          { headers: { 'cache-control': 'max-age=60' } },
        ),
    );
    const res = await cache.fetch('/stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), 'first;', 'the first chunk arrives while the origin still holds the rest');
    release();
    let rest = '';
    for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
    assert.equal(rest, 'second');
    await cache.idle();
    const hit = await get('/stream');
    assert.equal(hit.body, 'first;second');
    assert.match(hit.cs, /hit/);
    assert.equal(origin.count('/stream'), 1);
  });

  scenario('serves but does not store a body larger than maxBodyBytes', { maxBodyBytes: 1000 }, async ({ origin, get }) => {
    const big = 'x'.repeat(5000);
    origin.on(
      '/big',
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode(big));
              c.close();
            },
          }),
          { headers: { 'cache-control': 'max-age=60' } },
        ),
    );
    origin.on('/big-cl', () => reply(big, { 'cache-control': 'max-age=60', 'content-length': '5000' }));
    assert.equal((await get('/big')).body, big);
    assert.equal((await get('/big')).body.length, 5000);
    assert.equal(origin.count('/big'), 2);
    assert.match((await get('/big-cl')).cs, /detail="too-large"/);
    assert.equal(origin.count('/big-cl'), 1);
  });

  scenario('coalesces concurrent misses into one origin request; each client gets the whole body', {}, async ({ origin, cache }) => {
    // No timer decides who joins: the origin sends its head and a first chunk, then holds the
    // rest until every client has its head. The requests sent meanwhile can neither be hits
    // (nothing is stored before the body ends) nor forwards of their own: they must join.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const enc = new TextEncoder();
    const rest = 'slow'.repeat(1000);
    origin.on(
      '/slow',
      (_, k) =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(c) {
              c.enqueue(enc.encode(`first${k};`));
              await gate;
              c.enqueue(enc.encode(rest));
              c.close();
            },
          }),
          { headers: { 'cache-control': 'max-age=60' } },
        ),
    );
    const leader = await cache.fetch('/slow');
    const joiners = await Promise.all(Array.from({ length: 4 }, () => cache.fetch('/slow')));
    open();
    const responses = [leader, ...joiners];
    const bodies = await Promise.all(responses.map((r) => r.text()));
    assert.deepEqual(
      bodies,
      responses.map(() => `first1;${rest}`),
    );
    assert.equal(origin.count('/slow'), 1);
    const statuses = responses.map((r) => ownCacheStatus(r.headers.get('cache-status')));
    assert.doesNotMatch(statuses[0]!, /collapsed/, statuses.join(' | '));
    for (const cs of statuses.slice(1)) assert.match(cs, /; collapsed/, statuses.join(' | '));
  });

  scenario('reads malformed and duplicate Cache-Control, invalid dates and odd ages safely', {}, async ({ origin, clock, get }) => {
    origin.on('/garbage', numbered({ 'cache-control': 'max-age=abc, , =, "unterminated' }));
    origin.on('/dup', numbered({ 'cache-control': 'max-age=60, max-age=0' }));
    origin.on('/huge', numbered({ 'cache-control': 'max-age=99999999999999999999' }));
    origin.on('/negage', numbered({ 'cache-control': 'max-age=60', age: '-5' }));
    origin.on('/quoted', numbered({ 'cache-control': 'max-age="60"' }));
    origin.on('/baddate', numbered({ 'cache-control': 'max-age=60', date: 'yesterday' }));
    for (const p of ['/garbage', '/dup', '/huge', '/negage', '/quoted', '/baddate']) {
      assert.equal((await get(p)).status, 200);
    }
    clock.advance(30 * SECOND);
    assert.equal((await get('/garbage')).body, 'v2', 'an invalid max-age makes the response stale');
    assert.equal((await get('/dup')).cs, 'cachette; hit; ttl=30', 'the first of duplicate directives wins');
    assert.equal((await get('/huge')).cs, `cachette; hit; ttl=${2147483648 - 30}`);
    const neg = await get('/negage');
    assert.equal(neg.age, 30);
    assert.equal((await get('/quoted')).cs, 'cachette; hit; ttl=30');
    assert.equal((await get('/baddate')).cs, 'cachette; hit; ttl=30', 'an invalid Date is replaced by the time of receipt');
  });
}
