import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { notModified, selectsForUpdate } from '../../../src/http/rules/conditional.ts';

const stored = { etag: '"a"', lastModified: 'Sun, 06 Nov 1994 08:49:37 GMT' };

describe('client conditionals', () => {
  it('answers If-None-Match: * for any stored response, even one without an ETag', () => {
    assert.equal(notModified(new Headers({ 'if-none-match': '*' }), { etag: null, lastModified: null }), true);
    assert.equal(notModified(new Headers({ 'if-none-match': '"x"' }), { etag: null, lastModified: null }), false);
  });
});

describe('which stored response a 304 updates (RFC 9111 §4.3.4)', () => {
  const check = (headers: Record<string, string>) => selectsForUpdate(new Headers(headers), stored);

  it('needs a strong ETag to be the stored one exactly, and a weak one to match weakly', () => {
    assert.equal(check({ etag: '"a"' }), true);
    assert.equal(check({ etag: '"b"' }), false);
    assert.equal(check({ etag: 'W/"a"' }), true);
    assert.equal(check({ etag: 'W/"b"' }), false);
    assert.equal(selectsForUpdate(new Headers({ etag: '"a"' }), { etag: 'W/"a"', lastModified: null }), false, 'a strong validator the stored response only has weakly');
    assert.equal(selectsForUpdate(new Headers({ etag: '"a"' }), { etag: null, lastModified: stored.lastModified }), false, 'an ETag the stored response lacks');
  });

  it('compares Last-Modified as an instant when there is no ETag', () => {
    assert.equal(check({ 'last-modified': 'Sunday, 06-Nov-94 08:49:37 GMT' }), true);
    assert.equal(check({ 'last-modified': 'Mon, 07 Nov 1994 08:49:37 GMT' }), false);
    assert.equal(check({ 'last-modified': 'garbage' }), false);
    assert.equal(selectsForUpdate(new Headers({ 'last-modified': stored.lastModified }), { etag: '"a"', lastModified: null }), false);
  });

  it('lets a 304 without validators update the response whose validators the cache sent', () => {
    assert.equal(check({}), true);
  });
});
