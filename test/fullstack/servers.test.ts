import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EXCEPTION_MARKER, STORE_ERROR_MARKER } from '../../bench/fullstack/app/app.ts';
import type { WorkResult } from '../../bench/fullstack/app/workload.ts';
import { readFullstackConfig } from '../../bench/fullstack/config.ts';
import { TARGETS, type TargetId } from '../../bench/fullstack/plan.ts';
import { checkSanity, getSanity, startServer, type TargetContext } from '../../bench/fullstack/row-server.ts';
import { runTarget } from '../../bench/fullstack/run-target.ts';
import { httpRequest } from '../../bench/fullstack/support/http.ts';
import { groupProcesses } from '../../bench/fullstack/support/proc.ts';
import { startBridgeService, type Service } from '../../bench/fullstack/support/services.ts';
import { bundleWorker, type WorkerBundle } from '../../bench/fullstack/support/worker-bundle.ts';
import type { ServerMonitor } from '../../bench/support/server.ts';
import { requireRedis } from '../support/redis-env.ts';
import { freePort, startRedis, type RedisServer } from '../support/redis-server.ts';

// The full-stack bench's servers, one per runtime, as `npm run bench:fullstack` starts them:
// each starts, answers /work with the right values through cachette on that runtime's default
// store, serves a cached page, and stops with every process it started. No load, no timings.
// Its own redis-server: the prefills write thousands of keys, which would change what SCANs
// in other files sharing the suite's server see.
describe.runIf(requireRedis())('full-stack servers', () => {
  let redis: RedisServer;
  let bridge: Service & { token: string };
  let bundle: WorkerBundle;

  beforeAll(async () => {
    redis = await startRedis({ bin: process.env.REDIS_SERVER_BIN || undefined });
    bridge = await startBridgeService(redis.url);
    bundle = bundleWorker();
  }, 180_000);

  afterAll(async () => {
    await bridge?.stop();
    bundle?.remove();
    await redis?.stop();
  }, 60_000);

  const context = (id: TargetId): TargetContext => ({
    cfg: { ...readFullstackConfig(['--quick']), serverCpus: undefined, loadCpus: undefined },
    target: TARGETS.find((t) => t.id === id)!,
    // startServer never samples: no monitor is needed to start and stop a server.
    monitor: undefined as unknown as ServerMonitor,
    redis: { url: redis.url, port: redis.port, launched: undefined as never, stop: async () => {} },
    bridge,
    bundle,
    log: () => {},
  });

  const getJson = async (url: string): Promise<WorkResult> => {
    const { status, body } = await httpRequest(url);
    assert.equal(status, 200, body);
    return JSON.parse(body) as WorkResult;
  };

  for (const id of ['node', 'node-cluster', 'bun', 'deno', 'workerd-upstash', 'workerd-kv'] as const) {
    it(`${id}: starts, answers /work with the right values, serves a cached page, and stops`, async () => {
      const ctx = context(id);
      const { launched, base } = await startServer(ctx, { FULLSTACK_CONTENDER: 'cachette', FULLSTACK_PAGE: 'cachette', FULLSTACK_NAMESPACE: `fs-test-${id}` });
      try {
        const prefill = await httpRequest(`${base}/prefill`, 'POST');
        assert.deepEqual(JSON.parse(prefill.body), { stored: 1000 });
        const first = await getSanity(base);
        const second = await getSanity(base);
        assert.equal(checkSanity(first, second), undefined);
        assert.deepEqual({ ...second, counter: 0 }, { small: true, many: 5, counter: 0, doc: true });
        const random = await getJson(`${base}/work`);
        assert.ok(random.many >= 0 && random.many <= 10 && random.doc && random.counter >= 1, JSON.stringify(random));

        const bad = await httpRequest(`${base}/work?write=7`);
        assert.equal(bad.status, 400);
        assert.match(bad.body, /"write" must be an integer from 0 to 1999 and even/);

        const page = await httpRequest(`${base}/page/7`);
        assert.equal(page.status, 200);
        assert.equal((JSON.parse(page.body) as { id: string }).id, '7');
        assert.match(String(page.headers['cache-status']), /^cachette; fwd=uri-miss/);
        assert.equal(launched.marked(EXCEPTION_MARKER).count, 0, launched.outputTail());
      } finally {
        await launched.stop();
      }
      assert.deepEqual(groupProcesses(launched.pgid), [], 'no process of the server outlives stop()');
    }, 180_000);
  }

  it('node: a target runs its rows in alternating rounds, each server with its own keys and its own connection', async () => {
    const ctx = { ...context('node'), cfg: { ...context('node').cfg, rounds: 2, windowS: 1, warmupMinS: 1, warmupMaxS: 1, connections: 4 } };
    const rows = await runTarget(ctx, [
      { kind: 'work', row: { contender: 'cachette', label: 'cachette', role: 'cachette' } },
      { kind: 'work', row: { contender: 'iovalkey', label: 'iovalkey', role: 'raw' } },
      { kind: 'work', row: { contender: 'no-such-library', label: 'broken', role: 'peer' } },
    ]);
    const [cachette, iovalkey, broken] = rows;
    assert.equal(broken!.status, 'failed');
    assert.match(broken!.reason!, /unknown FULLSTACK_CONTENDER "no-such-library"/);
    for (const row of [cachette!, iovalkey!]) {
      assert.equal(row.status, 'ok', row.reason);
      assert.deepEqual(
        row.windows.map((w) => w.round),
        [0, 1],
      );
      assert.ok(row.windows.every((w) => w.requests > 0 && w.non2xx + w.socketErrors === 0));
      // Both servers are up at once against one redis-server: each counts only its own connection.
      assert.deepEqual(
        row.windows.map((w) => w.connections),
        [1, 1],
      );
      assert.equal(row.connectionsIdle, 1);
      assert.equal(row.exceptions, 0);
    }
    // A B, then B A: the second round starts with the row that ended the first.
    assert.ok(cachette!.windows[0]!.at < iovalkey!.windows[0]!.at && iovalkey!.windows[1]!.at < cachette!.windows[1]!.at);
  }, 180_000);

  it('node: store failures reach the harness as store errors, and a write that was not stored fails the request', async () => {
    // A store that does not answer: every cachette call is a miss plus an error event.
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const { launched, base } = await startServer({ ...context('node'), redis: { ...context('node').redis, url: closed } }, { FULLSTACK_CONTENDER: 'cachette' });
    try {
      const work = await httpRequest(`${base}/work`);
      assert.equal(work.status, 500);
      assert.equal(work.body, 'error: cachette set reported failure');
      for (let i = 0; i < 50 && launched.marked(STORE_ERROR_MARKER).count === 0; i++) await new Promise((r) => setTimeout(r, 100));
      const tally = launched.marked(STORE_ERROR_MARKER);
      assert.ok(tally.count >= 1, 'the store errors were counted');
      assert.match(tally.first[0]!, /^\[fullstack-store-error\] ×\d+ /);
    } finally {
      await launched.stop();
    }
  }, 120_000);

  it('a server that cannot open its contender stops at start with the reason', async () => {
    await assert.rejects(
      startServer(context('node'), { FULLSTACK_CONTENDER: 'no-such-library' }),
      (e: Error) => /node server exited before a 200/.test(e.message) && /unknown FULLSTACK_CONTENDER "no-such-library"/.test(e.message),
    );
  }, 120_000);

  it('workerd: an exception in the Worker is a 500 and is counted, as on the other runtimes', async () => {
    // The Worker opens its contender on the first request, so the failure happens per request.
    const { launched, base } = await startServer(context('workerd-kv'), { FULLSTACK_CONTENDER: 'no-such-library' });
    try {
      for (let i = 0; i < 2; i++) {
        const work = await httpRequest(`${base}/work`);
        assert.equal(work.status, 500);
        assert.match(work.body, /unknown FULLSTACK_CONTENDER "no-such-library"/);
      }
      // workerd's console output reaches the harness through miniflare, a moment later.
      for (let i = 0; i < 50 && launched.marked(EXCEPTION_MARKER).count < 2; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(launched.marked(EXCEPTION_MARKER).count, 2, 'one exception per request reached the count');
    } finally {
      await launched.stop();
    }
  }, 180_000);
});
