import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { deltaSeconds, parseDirectives, requestDirectives } from '../../../src/http/rules/cache-control.ts';
import { parseHttpDate } from '../../../src/http/rules/http-date.ts';
import { parseVary } from '../../../src/http/rules/vary.ts';

describe('Cache-Control parsing', () => {
  it('reads tokens and quoted arguments, case-insensitively, keeping the first of duplicates', () => {
    const d = parseDirectives('Max-Age=60, no-cache="Set-Cookie, X-A", max-age=0, private');
    assert.equal(d.get('max-age'), '60');
    assert.equal(d.get('no-cache'), 'Set-Cookie, X-A');
    assert.equal(d.get('private'), true);
  });

  it('skips empty and broken members without throwing', () => {
    const d = parseDirectives(' , =5, max-age=abc, "x", s-maxage="10" junk, public');
    assert.equal(deltaSeconds(d, 'max-age'), NaN);
    assert.equal(deltaSeconds(d, 's-maxage'), 10);
    assert.equal(d.get('public'), true);
    assert.equal(parseDirectives('no-cache="unterminated').get('no-cache'), 'unterminated');
    assert.equal(parseDirectives(null).size, 0);
  });

  it('clamps huge delta-seconds to 2^31 and rejects negative or fractional ones', () => {
    assert.equal(deltaSeconds(parseDirectives('max-age=99999999999999999999'), 'max-age'), 2147483648);
    assert.equal(deltaSeconds(parseDirectives('max-age=-1'), 'max-age'), NaN);
    assert.equal(deltaSeconds(parseDirectives('max-age=1.5'), 'max-age'), NaN);
    assert.equal(deltaSeconds(parseDirectives('max-age'), 'max-age'), NaN);
  });

  it('reads request directives, ignoring invalid arguments, with Pragma only when Cache-Control is absent', () => {
    assert.deepEqual(requestDirectives(new Headers({ 'cache-control': 'max-age=x, max-stale, min-fresh=5' })), {
      noStore: false,
      noCache: false,
      onlyIfCached: false,
      maxAge: undefined,
      maxStale: Infinity,
      minFresh: 5000,
      staleIfError: undefined,
    });
    assert.equal(requestDirectives(new Headers({ 'cache-control': 'stale-if-error=30' })).staleIfError, 30_000);
    assert.equal(requestDirectives(new Headers({ 'cache-control': 'stale-if-error' })).staleIfError, undefined, 'no argument: nothing accepted');
    assert.equal(requestDirectives(new Headers({ pragma: 'no-cache' })).noCache, true);
    assert.equal(requestDirectives(new Headers({ pragma: 'no-cache', 'cache-control': 'max-age=5' })).noCache, false);
  });
});

describe('HTTP-date parsing', () => {
  it('accepts the three formats RFC 9110 requires', () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), t);
    assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), t);
    assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), t);
  });

  it('rejects what is not an HTTP-date instead of guessing', () => {
    for (const bad of ['0', '-1', '2024-01-01', 'yesterday', 'Sun, 31 Feb 2024 00:00:00 GMT', 'Sun, 06 Nov 1994 25:00:00 GMT', '', null]) {
      assert.equal(parseHttpDate(bad), undefined, String(bad));
    }
  });
});

describe('Vary parsing', () => {
  it('lower-cases, sorts and dedupes names, and reports *', () => {
    assert.deepEqual(parseVary('Accept-Encoding, accept,  ACCEPT'), ['accept', 'accept-encoding']);
    assert.equal(parseVary('accept, *'), '*');
    assert.deepEqual(parseVary(null), []);
  });
});
