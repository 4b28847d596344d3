/**
 * Purging is immediate (issue 10, item 8): once `purge` resolves, no request gets the purged
 * response, whether its store write was still running or its forward still had joiners.
 */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import { ownCacheStatus, type ScenarioFn } from './harness.ts';

export function purgeScenarios(scenario: ScenarioFn): void {
  scenario('purge right after a response was served: the next request never gets the purged body', {}, async ({ origin, cache }) => {
    origin.on('/tagged', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60', 'cache-tag': 'news' }));
    for (const [round, target] of [
      [1, { url: '' }],
      [2, { tag: 'news' }],
      [3, { url: '' }],
    ] as const) {
      const first = await cache.fetch('/tagged');
      const url = first.url;
      assert.equal(await first.text(), `v${round * 2 - 1}`);
      // No idle(): the store write may still be running, as with a real client.
      await cache.purge('tag' in target ? target : { url });
      const next = await cache.fetch('/tagged');
      const cs = ownCacheStatus(next.headers.get('cache-status'));
      assert.equal(await next.text(), `v${round * 2}`, `round ${round}: ${cs}`);
      assert.doesNotMatch(cs, /collapsed|hit/, `round ${round}`);
      await cache.idle();
      await cache.purge({ tag: 'news' });
    }
  });

  scenario('purge while the origin is still sending: later requests do not join that forward', {}, async ({ origin, cache }) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const enc = new TextEncoder();
    origin.on('/slow', (_, k) =>
      k > 1
        ? reply(`v${k}`, { 'cache-control': 'max-age=60' })
        : new Response(
            new ReadableStream<Uint8Array>({
              async start(controller) {
                controller.enqueue(enc.encode('old;'));
                await released;
                controller.enqueue(enc.encode('body'));
                controller.close();
              },
            }),
            { headers: { 'cache-control': 'max-age=60' } },
          ),
    );
    const first = await cache.fetch('/slow');
    const reader = first.body!.getReader();
    await reader.read();
    assert.equal(await cache.purge({ url: first.url }), 0, 'nothing stored yet');
    const next = await cache.fetch('/slow');
    assert.equal(await next.text(), 'v2');
    assert.doesNotMatch(ownCacheStatus(next.headers.get('cache-status')), /collapsed/);
    release();
    while (!(await reader.read()).done) {
      /* drain */
    }
    await cache.idle();
    const after = await cache.fetch('/slow');
    assert.equal(await after.text(), 'v2', 'the purged forward did not store its body after the purge');
    assert.equal(origin.count('/slow'), 2);
  });
}
