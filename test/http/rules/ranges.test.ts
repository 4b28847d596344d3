/** Byte-range helpers (RFC 9110 §14, §13.1.5; RFC 9111 §3.4). */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { formatHttpDate } from '../../../src/http/rules/http-date.ts';
import { addSpan, ifRangeHolds, missingSpans, offsetInPartial, parseContentRange, parseRange, resolveRange } from '../../../src/http/rules/ranges.ts';

describe('Range', () => {
  it('reads one byte range, knows a set of several, and ignores what is not a byte range set', () => {
    assert.deepEqual(parseRange('bytes=0-499'), { first: 0, last: 499 });
    assert.deepEqual(parseRange('Bytes = 500-'), { first: 500, last: undefined });
    assert.deepEqual(parseRange('bytes=-20'), { suffix: 20 });
    assert.equal(parseRange('bytes=0-1, 4-5'), 'multiple');
    for (const bad of ['bytes=5-2', 'bytes=', 'bytes=a-b', 'items=0-1', 'bytes 0-1', 'bytes=-', 'bytes=1-2-3', 'bytes=9999999999999999-']) {
      assert.equal(parseRange(bad), undefined, bad);
    }
  });

  it('resolves against the length, or says unsatisfiable', () => {
    assert.deepEqual(resolveRange({ first: 0, last: 9 }, 5), [0, 5]);
    assert.deepEqual(resolveRange({ first: 3, last: undefined }, 5), [3, 5]);
    assert.deepEqual(resolveRange({ suffix: 10 }, 5), [0, 5]);
    assert.equal(resolveRange({ first: 5, last: undefined }, 5), undefined);
    assert.equal(resolveRange({ suffix: 0 }, 5), undefined);
    assert.equal(resolveRange({ suffix: 1 }, 0), undefined);
  });

  it('holds If-Range only for the current strong ETag, or a strong Last-Modified equal to the date', () => {
    const lm = Date.UTC(2024, 0, 1);
    const v = { etag: '"a"', lastModified: formatHttpDate(lm), date: formatHttpDate(lm + 5000) };
    assert.equal(ifRangeHolds('"a"', v), true);
    assert.equal(ifRangeHolds('W/"a"', v), false);
    assert.equal(ifRangeHolds('"a"', { ...v, etag: 'W/"a"' }), false);
    assert.equal(ifRangeHolds(formatHttpDate(lm), v), true);
    assert.equal(ifRangeHolds(formatHttpDate(lm), { ...v, date: formatHttpDate(lm) }), false, 'a Last-Modified within a second of Date is weak');
    assert.equal(ifRangeHolds(formatHttpDate(lm + 1000), v), false);
    assert.equal(ifRangeHolds('yesterday', v), false);
  });

  it('reads Content-Range of a 206', () => {
    assert.deepEqual(parseContentRange('bytes 0-9/20'), { span: [0, 10], length: 20 });
    assert.deepEqual(parseContentRange('bytes 5-9/*'), { span: [5, 10], length: undefined });
    for (const bad of ['bytes */20', 'bytes 9-5/20', 'bytes 0-20/20', 'items 0-1/2', null]) assert.equal(parseContentRange(bad), undefined, String(bad));
  });
});

describe('partial content', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const text = (b: Uint8Array) => new TextDecoder().decode(b);

  it('combines parts, joins touching spans, and lets new bytes win where parts overlap', () => {
    let p = addSpan(undefined, 10, [0, 3], bytes('abc'));
    p = addSpan(p, 10, [6, 8], bytes('gh'));
    assert.deepEqual(p.partial.spans, [
      [0, 3],
      [6, 8],
    ]);
    assert.equal(text(p.body), 'abcgh');
    assert.deepEqual(missingSpans(p.partial), [
      [3, 6],
      [8, 10],
    ]);
    p = addSpan(p, 10, [2, 7], bytes('CDEFG'));
    assert.deepEqual(p.partial.spans, [[0, 8]]);
    assert.equal(text(p.body), 'abCDEFGh');
    assert.equal(offsetInPartial(p.partial, [3, 5]), 3);
    assert.equal(offsetInPartial(p.partial, [7, 9]), undefined);
    p = addSpan(p, 10, [8, 10], bytes('ij'));
    assert.deepEqual(p.partial.spans, [[0, 10]]);
    assert.deepEqual(missingSpans(p.partial), []);
    assert.equal(text(p.body), 'abCDEFGhij');
  });
});
