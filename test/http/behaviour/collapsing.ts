/**
 * What requests that arrive while a forward for their URL is running get from it: never a
 * response that may not be reused without validation (issue 23, item 11), and no queueing at all
 * behind a URL whose answers cannot be shared (hit-for-miss, issue 19, item 4), while a
 * cacheable URL still costs one origin call however many ask for it at once.
 */
import assert from 'node:assert/strict';
import { sleep } from '../../support/suite-api.ts';
import { reply } from '../scripted-origin.ts';
import { ownCacheStatus, SECOND, type ScenarioFn } from './harness.ts';

/** Polls `condition` every 5 ms, failing after ten seconds (a loaded machine is slow, not wrong). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await sleep(5);
  assert.ok(condition(), `${what}: not within 10 s`);
}

/** An origin path whose calls each wait until released: how many are waiting, and a release for all of them. */
function heldCalls() {
  const waiting: Array<() => void> = [];
  return {
    get inFlight() {
      return waiting.length;
    },
    hold: () => new Promise<void>((resolve) => waiting.push(resolve)),
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

export function collapsingScenarios(scenario: ScenarioFn): void {
  scenario('a no-cache response is not handed to the requests that waited for it: each asks the origin itself', {}, async ({ origin, cache }) => {
    const held = heldCalls();
    origin.on('/account', async (req) => {
      await held.hold();
      const user = req.headers.get('x-user');
      return reply(`account of ${user}`, { 'cache-control': 'no-cache', etag: `"${user}"` });
    });
    const alice = cache.fetch('/account', { headers: { 'x-user': 'alice' } });
    await until(() => held.inFlight === 1, "Alice's request reached the origin");
    const bob = cache.fetch('/account', { headers: { 'x-user': 'bob' } });
    // Bob's request reaches the cache while Alice's is at the origin (on a loopback socket).
    await sleep(50);
    held.releaseAll();
    assert.equal(await (await alice).text(), 'account of alice');
    // Bob's own request reaches the origin now, after Alice's answer came back.
    await until(() => held.inFlight === 1, "Bob's own request reached the origin");
    held.releaseAll();
    const bobs = await bob;
    assert.equal(await bobs.text(), 'account of bob');
    assert.doesNotMatch(ownCacheStatus(bobs.headers.get('cache-status')), /collapsed/);
    assert.equal(origin.count('/account'), 2);
  });

  scenario('hit-for-miss: after an uncacheable answer, concurrent misses for the URL go to the origin at once, each on its own', {}, async ({ origin, clock, cache }) => {
    const held = heldCalls();
    let headers: Record<string, string> = { 'cache-control': 'no-store' };
    origin.on('/ns', async (_, k) => {
      await held.hold();
      return reply(`v${k}`, headers);
    });
    /** Sends `n` requests at once: `inFlight` of them reach the origin together, then `released` more once those are answered. */
    const burst = async (n: number, inFlight: number, released = 0) => {
      const pending = Array.from({ length: n }, () => cache.fetch('/ns').then(async (r) => [await r.text(), ownCacheStatus(r.headers.get('cache-status'))] as const));
      await until(() => held.inFlight === inFlight, `${inFlight} of ${n} requests at the origin at once`);
      held.releaseAll();
      if (released > 0) {
        await until(() => held.inFlight === released, `${released} waiting requests went on to the origin at once`);
        held.releaseAll();
      }
      const answers = await Promise.all(pending);
      await cache.idle();
      return answers;
    };
    // The first answer is no-store: the URL is remembered as one whose answers cannot be shared.
    await burst(1, 1);
    const passed = await burst(5, 5);
    assert.ok(
      passed.every(([, cs]) => !/collapsed/.test(cs)),
      JSON.stringify(passed),
    );
    assert.equal(origin.count('/ns'), 6);

    // It lasts 120 s: then misses collapse again, and the requests queued behind the one
    // answered no-store are released to the origin at once.
    clock.advance(121 * SECOND);
    await burst(5, 1, 4);
    assert.equal(origin.count('/ns'), 11);

    // A storable answer ends it at once: once purged, concurrent misses make one origin call.
    headers = { 'cache-control': 'max-age=60' };
    await burst(1, 1);
    assert.equal(origin.count('/ns'), 12);
    const stored = await cache.fetch('/ns');
    assert.match(ownCacheStatus(stored.headers.get('cache-status')), /hit/);
    await stored.text();
    await cache.purge({ url: stored.url });
    const collapsed = await burst(5, 1);
    assert.equal(origin.count('/ns'), 13, 'one origin call for a cacheable URL');
    assert.deepEqual(
      collapsed.map(([body]) => body),
      ['v13', 'v13', 'v13', 'v13', 'v13'],
    );
  });

  scenario('a 5xx does not start hit-for-miss: requests keep waiting for one call to a failing origin', {}, async ({ origin, cache }) => {
    const held = heldCalls();
    origin.on('/down', async (_, k) => {
      await held.hold();
      return reply(`down ${k}`, { 'cache-control': 'no-store' }, 503);
    });
    const first = cache.fetch('/down');
    await until(() => held.inFlight === 1, 'the first request reached the origin');
    held.releaseAll();
    assert.equal((await first).status, 503);
    await (await first).text();
    const burst = Array.from({ length: 5 }, () => cache.fetch('/down').then(async (r) => [r.status, await r.text()] as const));
    await until(() => held.inFlight === 1, 'one request at the origin');
    // The others arrive meanwhile and wait for that call instead of asking the origin too.
    await sleep(50);
    assert.equal(held.inFlight, 1);
    held.releaseAll();
    const answers = await Promise.all(burst);
    assert.ok(
      answers.every(([status]) => status === 503 || status === 504),
      JSON.stringify(answers),
    );
  });
}
