import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { currentAge, keptStaleMs, retentionMs, staleAsOf, staledBy, type Timed } from '../../../src/http/rules/freshness.ts';

const SECOND = 1000;
/** A response received at t=100 s, 5 s old on arrival, fresh for 60 s. */
const stored: Timed = {
  lifetime: 60 * SECOND,
  initialAge: 5 * SECOND,
  responseTime: 100 * SECOND,
  mustRevalidate: false,
  clientMayAcceptStale: true,
  staleWhileRevalidateMs: 30 * SECOND,
  staleIfErrorMs: 0,
};

describe('the freshness record and what the store keeps (issue 29)', () => {
  it('keeps a response for what is left of its freshness, then its longest stale window or retainStale', () => {
    assert.equal(retentionMs(stored, stored.responseTime, 10 * SECOND), 55 * SECOND + 30 * SECOND);
    assert.equal(retentionMs(stored, stored.responseTime, 600 * SECOND), 55 * SECOND + 600 * SECOND);
    // 20 s later, 20 s less; once stale, 1 ms of freshness is counted, never less.
    assert.equal(retentionMs(stored, stored.responseTime + 20 * SECOND, 10 * SECOND), 35 * SECOND + 30 * SECOND);
    assert.equal(retentionMs(stored, stored.responseTime + 90 * SECOND, 10 * SECOND), 1 + 30 * SECOND);
  });

  it('turns a fresh response stale as of now (by 1 ms), keeping the rest; leaves a stale one alone', () => {
    const now = stored.responseTime + 10 * SECOND;
    const staled = staleAsOf(stored, now)!;
    assert.equal(currentAge(staled, now), 15 * SECOND);
    assert.equal(staled.lifetime, 15 * SECOND - 1);
    assert.deepEqual({ ...staled, lifetime: stored.lifetime }, stored);
    assert.equal(staleAsOf(stored, stored.responseTime + 55 * SECOND), undefined);
    // What the store keeps of it is counted from the purge: its stale window, or retainStale.
    assert.equal(retentionMs(staled, now, 600 * SECOND), 1 + 600 * SECOND);
  });

  it("keeps a response once stale for its longest stale window or retainStale: the engine entry's grace", () => {
    assert.equal(keptStaleMs(stored, 10 * SECOND), 30 * SECOND);
    assert.equal(keptStaleMs(stored, 600 * SECOND), 600 * SECOND);
  });

  it('judges a response the engine marked stale as stale since then, a duration on either clock (issue 32, item 4)', () => {
    const now = stored.responseTime + 20 * SECOND;
    // Marked 4 s ago: stale since its age was 21 s, so 4 s (and 1 ms) stale now.
    const staled = staledBy(stored, 4 * SECOND, now);
    assert.equal(staled.lifetime, 21 * SECOND - 1);
    assert.equal(currentAge(staled, now) - staled.lifetime, 4 * SECOND + 1);
    // Stale by its own record already: left as it is.
    const late = stored.responseTime + 80 * SECOND;
    assert.equal(staledBy(stored, 1000, late), stored);
  });
});
