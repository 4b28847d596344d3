// Hit-for-miss bookkeeping (collapsing.ts): per variant when the answer varied, for a bounded
// time on the cache's clock, ended by a shareable answer, and bounded in memory.
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { Forwards } from '../../../src/http/exchange/collapsing.ts';

const headers = (init: Record<string, string> = {}) => new Headers(init);

describe('hit-for-miss', () => {
  it('applies to the variant the uncacheable answer was for, until it expires or a shareable answer comes', () => {
    let now = 1_000;
    const forwards = new Forwards({ ms: 120_000, now: () => now });
    forwards.pass('u', ['cookie'], headers({ cookie: 'session=a' }));
    assert.equal(forwards.passes('u', headers({ cookie: 'session=a' })), true);
    assert.equal(forwards.passes('u', headers({ cookie: 'session=b' })), false, 'another variant still collapses');
    assert.equal(forwards.passes('u', headers()), false);
    forwards.pass('u', [], headers());
    assert.equal(forwards.passes('u', headers({ cookie: 'session=b' })), true, 'an answer without Vary covers every request');
    now += 120_000;
    assert.equal(forwards.passes('u', headers()), false, 'expired');
    forwards.pass('u', [], headers());
    forwards.unpass('u');
    assert.equal(forwards.passes('u', headers()), false, 'a shareable answer ended it');
  });

  it('is off at 0, and remembers at most 10,000 URLs (the oldest go first)', () => {
    const off = new Forwards({ ms: 0, now: () => 0 });
    off.pass('u', [], headers());
    assert.equal(off.passes('u', headers()), false);
    const forwards = new Forwards({ ms: 1_000, now: () => 0 });
    for (let i = 0; i <= 10_000; i++) forwards.pass(`u${i}`, [], headers());
    assert.equal(forwards.passes('u0', headers()), false);
    assert.equal(forwards.passes('u1', headers()), true);
    assert.equal(forwards.passes('u10000', headers()), true);
  });
});
