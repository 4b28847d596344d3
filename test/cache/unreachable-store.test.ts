/**
 * Issue 20, item 4 (first-hour defect 3): the Quickstart against a closed port printed the
 * value and exited 0 with nothing saying the store was never used, unless a `logger` was
 * passed; and a strict cache threw iovalkey's MaxRetriesPerRequestError, which names no
 * server. Now a store that cannot be reached is said once, by default on `console.warn`,
 * naming the store, its address and the cause, and once when it answers again; `logger: false`
 * keeps quiet; a strict error names the store and its address.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it, vi } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, StoreError, type CacheLogger } from '../../src/index.ts';
import { StoreUnavailableError } from '../../src/store/index.ts';
import { FailingStore } from '../support/wrapped-stores.ts';

/** Port 1 on loopback refuses connections. */
const CLOSED = 'redis://127.0.0.1:1';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The Quickstart of README, against a closed port. */
async function quickstart(options: { strict?: boolean; logger?: CacheLogger | false } = {}) {
  const db = { users: { find: async (id: string) => ({ id, name: 'Ada' }) } };
  const cache = createCache({ store: valkeyStore(CLOSED), ttl: '30s', grace: '5m', ...options });
  try {
    return await cache.getOrSet('user:42', () => db.users.find('42'));
  } finally {
    await cache.close();
  }
}

describe('a store that cannot be reached', () => {
  it('is said once on console.warn by default, with the store, its address and the cause', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    assert.deepEqual(await quickstart(), { id: '42', name: 'Ada' });
    assert.deepEqual(
      warn.mock.calls.map((call) => call.join(' ')),
      ['cachette: store valkey at 127.0.0.1:1 is unreachable (connect ECONNREFUSED 127.0.0.1:1); serving from the source'],
    );
  });

  it('keeps quiet with logger: false, and goes to the logger given instead of the console', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await quickstart({ logger: false });
    const lines: string[] = [];
    await quickstart({ logger: { warn: (line) => lines.push(line), info: (line) => lines.push(line) } });
    assert.equal(warn.mock.calls.length, 0);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^cachette: store valkey at 127\.0\.0\.1:1 is unreachable \(connect ECONNREFUSED/);
  });

  it('is a strict error that names the store, its address and the cause', async () => {
    await assert.rejects(
      quickstart({ strict: true, logger: false }),
      (error: unknown) => error instanceof StoreUnavailableError && error.message === 'valkey 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it("wraps a client's raw error for a strict caller, keeping it as the cause", async () => {
    const failing = new FailingStore(memoryStore(), { pipeline: false });
    const cause = new Error('socket hang up');
    failing.reads = 'fail';
    failing.error = () => cause;
    const cache = createCache({ store: failing, strict: true, logger: false });
    await assert.rejects(cache.get('k'), (error: unknown) => error instanceof StoreError && error.message === 'memory: get failed: socket hang up' && error.cause === cause);
    await cache.close();
  });

  it('says once that it answers again, and nothing while it keeps answering or keeps failing', async () => {
    const failing = new FailingStore(memoryStore(), { pipeline: false });
    const lines: string[] = [];
    const cache = createCache({ store: failing, logger: { warn: (line) => lines.push(`warn ${line}`), info: (line) => lines.push(`info ${line}`) }, circuitBreaker: { threshold: 100 } });
    for (let i = 0; i < 3; i++) await cache.set(`k${i}`, i);
    failing.reads = 'fail';
    failing.writes = 'fail';
    for (let i = 0; i < 5; i++) {
      assert.equal(await cache.get(`k${i}`), undefined);
      assert.equal(await cache.set(`k${i}`, i), false);
    }
    failing.reads = 'pass';
    failing.writes = 'pass';
    for (let i = 0; i < 5; i++) await cache.set(`k${i}`, i);
    assert.equal(await cache.get('k1'), 1);
    assert.deepEqual(lines, ['warn cachette: store memory is unreachable (connect ECONNREFUSED 127.0.0.1:1); serving from the source', 'info cachette: store memory answers again']);
    await cache.close();
  });
});
