/**
 * Issue 22, item 1: examples/next, built from the packed tarball with `next build`, served by two
 * `next start` instances over one real redis-server, checked over HTTP. Both instances serve a
 * cached page from the store (the same generated value), a `"use cache"` page and a Pages Router
 * ISR page alike; an on-demand ISR regeneration on one is served by the other; a revalidation on
 * one is seen by the other on its next request (tag generations: no pub/sub, no clock);
 * `updateTag` in a server action reads its own write; a stopped Redis gives pages, not errors,
 * and no request hangs.
 *
 * The build runs with CACHETTE_STORE=memory (as a CI build without the production store would),
 * the instances with REDIS_URL. Every process is killed when the test ends, and by a watchdog if
 * the test runner dies first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { mustRunAll } from '../support/redis-env.ts';
import { eventually } from '../support/eventually.ts';
import { findRedisServer } from '../support/redis-server.ts';
import { prepareExample, TwoInstances, type NextServer } from './next-app.ts';

const bin = process.env.REDIS_SERVER_BIN || findRedisServer();
/** No request may take longer than this, whatever the store does. */
const REQUEST_BOUND_MS = 15_000;

let work: string;
let deployment: TwoInstances | undefined;
/** What the Next processes printed, for the messages of failed assertions. */
const output = { toString: () => String(deployment?.output ?? '') };

/** GET `path` from `server`: its status and the id the page shows in `#<field>`. */
async function read(server: NextServer, path: string, field: string): Promise<{ status: number; id: string | undefined; html: string }> {
  const response = await fetch(server.url + path, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  const html = await response.text();
  return { status: response.status, id: new RegExp(`id="${field}">([^<]+)<`).exec(html)?.[1], html };
}

const greeting = async (server: NextServer) => {
  const page = await read(server, '/', 'greeting');
  assert.equal(page.status, 200, output.toString());
  assert.ok(page.id, `no greeting on the page:\n${page.html.slice(0, 500)}`);
  return page.id;
};

async function revalidate(server: NextServer, query: string): Promise<void> {
  const response = await fetch(`${server.url}/api/revalidate?${query}`, { method: 'POST', signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  assert.equal(response.status, 200, output.toString());
}

/**
 * Reads the greeting from both instances until they agree twice in a row: after a revalidation
 * that fences its tags, entries are stored again once the fence is committed (writeFence, 1 s).
 */
async function settledGreeting(a: NextServer, b: NextServer): Promise<string> {
  const until = Date.now() + 20_000;
  let previous: string | undefined;
  for (;;) {
    const [first, second] = [await greeting(a), await greeting(b)];
    if (first === second && first === previous) return first;
    previous = first === second ? first : undefined;
    assert.ok(Date.now() < until, `the instances never served one greeting from the store:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(!bin && !mustRunAll)('cachette/next: examples/next on two instances over one Redis', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-next-'));
    deployment = new TwoInstances(prepareExample(work));
    await deployment.start(bin);
  }, 240_000);

  afterAll(async () => {
    await deployment?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('serves a cached page from the store on both instances: the same generated value', async () => {
    const [a, b] = deployment!.pair;
    const first = await greeting(a);
    assert.equal(await greeting(b), first, 'b rendered the page again instead of reading a’s entry');
    assert.equal(await greeting(a), first);
    const isr = await read(a, '/isr', 'isr');
    assert.equal(isr.status, 200);
    assert.ok(isr.id);
    assert.equal((await read(b, '/isr', 'isr')).id, isr.id, 'the ISR page was rendered twice');
  });

  it('regenerates the ISR page on demand on one instance (res.revalidate), and the other serves the new page', async () => {
    const [a, b] = deployment!.pair;
    const before = (await read(b, '/isr', 'isr')).id;
    const response = await fetch(`${a.url}/api/isr-revalidate`, { method: 'POST', signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    assert.equal(response.status, 200, output.toString());
    const after = await read(b, '/isr', 'isr');
    assert.equal(after.status, 200);
    assert.ok(after.id && after.id !== before, `b served the ISR page ${before} that a had regenerated`);
    assert.equal((await read(a, '/isr', 'isr')).id, after.id);
  });

  it('sees a revalidateTag made on one instance on the other’s next request', async () => {
    const [a, b] = deployment!.pair;
    const before = await settledGreeting(a, b);
    await revalidate(a, 'tag=greeting');
    // Next runs a route handler's revalidations after its response (pendingWaitUntil): b sees
    // the revalidation on its first read after it reached the store.
    await eventually(async () => (await greeting(b)) !== before, 'b served a new greeting after a revalidated the tag', 100);
    const settled = await settledGreeting(a, b);
    assert.notEqual(settled, before);
  });

  it('revalidates with a profile (stale-while-revalidate) within one stale read', async () => {
    const [a, b] = deployment!.pair;
    const before = await settledGreeting(a, b);
    await revalidate(b, 'tag=greeting&profile=max');
    await eventually(async () => (await greeting(a)) !== before, `a served a new greeting after b revalidated the tag with a profile`, 100);
  });

  it('reads its own write after updateTag in a server action, and so does the other instance', async () => {
    const [a, b] = deployment!.pair;
    const before = await settledGreeting(a, b);
    const page = await read(a, '/', 'greeting');
    const action = /name="(\$ACTION_ID_[^"]+)"/.exec(page.html)?.[1];
    assert.ok(action, 'the page has no server action form');
    // The form as a browser without JavaScript posts it: Next runs the action, then renders the page.
    const form = new FormData();
    form.set(action, '');
    const response = await fetch(`${a.url}/`, { method: 'POST', body: form, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    assert.equal(response.status, 200, output.toString());
    const rendered = /id="greeting">([^<]+)</.exec(await response.text())?.[1];
    assert.ok(rendered && rendered !== before, `the action's render showed ${rendered}, the value before updateTag`);
    await eventually(async () => (await greeting(b)) !== before, 'b served a new greeting after updateTag on a', 100);
  });

  it('gives pages, not errors, when Redis is stopped, and no request hangs', async () => {
    await deployment!.stopRedis();
    for (const server of deployment!.pair) {
      for (let i = 0; i < 3; i++) {
        assert.ok(await greeting(server));
        const isr = await read(server, '/isr', 'isr');
        assert.equal(isr.status, 200, output.toString());
        assert.ok(isr.id);
      }
      await revalidate(server, 'tag=greeting');
    }
  }, 120_000);
});
