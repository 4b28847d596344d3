/** The field parsers behind targeted cache-control and variant selection: RFC 8941 dictionaries, RFC 9213 directives, negotiation-field normalisation. */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { responseDirectives, targetedDirectives } from '../../../src/http/rules/response-directives.ts';
import { parseDictionary } from '../../../src/http/rules/structured-fields.ts';
import { preferredLanguages, varyValues } from '../../../src/http/rules/vary.ts';

describe('Structured Field Dictionaries (RFC 8941)', () => {
  it('reads items, bare keys, parameters and inner lists', () => {
    const d = parseDictionary('max-age=60, no-store, a=?0, s="x\\"y", t=tok/en;p=1, l=(1 "b");q, dec=1.5, b=:AAE=:')!;
    assert.deepEqual(d.get('max-age'), { type: 'integer', value: 60 });
    assert.deepEqual(d.get('no-store'), { type: 'boolean', value: true });
    assert.deepEqual(d.get('a'), { type: 'boolean', value: false });
    assert.deepEqual(d.get('s'), { type: 'string', value: 'x"y' });
    assert.deepEqual(d.get('t'), { type: 'token', value: 'tok/en' });
    assert.equal(d.get('l')?.type, 'inner-list');
    assert.deepEqual(d.get('dec'), { type: 'decimal', value: 1.5 });
    assert.deepEqual(d.get('b'), { type: 'bytes', value: 'AAE=' });
  });

  it('lets a later duplicate win, and tolerates optional whitespace around commas', () => {
    assert.deepEqual(parseDictionary('max-age=1,   max-age=2')!.get('max-age'), { type: 'integer', value: 2 });
    assert.equal(parseDictionary('  ')!.size, 0);
  });

  it('fails the whole field on any syntax error', () => {
    for (const bad of ['max-age=10000, &&&&', 'Max-Age=1', 'a=1,', 'a=1 b=2', 'a="unterminated', 'a=1234567890123456', 'a=1.2345', 'a=?2', 'a=(1 2', 'a=\u00e9', 'a=1,,b=2', 'a="\u0001"']) {
      assert.equal(parseDictionary(bad), undefined, bad);
    }
  });
});

describe('targeted cache-control directives (RFC 9213)', () => {
  it('gives the RFC 9111 directives, capping delta-seconds at 2^31 and dropping ?0 flags', () => {
    const d = targetedDirectives('max-age=99999999999999, no-store=?0, private, stale-if-error=5, x-custom="a"')!;
    assert.equal(d.get('max-age'), '2147483648');
    assert.equal(d.has('no-store'), false);
    assert.equal(d.get('private'), true);
    assert.equal(d.get('stale-if-error'), '5');
    assert.equal(d.get('x-custom'), 'a');
    assert.equal(targetedDirectives('no-cache="set-cookie"')!.get('no-cache'), true);
  });

  it('refuses a field whose directives have the wrong type, or that is empty', () => {
    for (const bad of ['max-age="10000"', 'max-age=1.5', 'max-age=-1', 'no-store=3', 'public="yes"', '', 'max-age=10000, &&&&']) {
      assert.equal(targetedDirectives(bad), undefined, bad);
    }
  });

  it('picks the first valid targeted field in order, else Cache-Control with Expires', () => {
    const headers = new Headers({ 'a-cdn-cache-control': 'max-age="1"', 'cdn-cache-control': 'max-age=2', 'cache-control': 'max-age=3' });
    assert.deepEqual(responseDirectives(headers, ['a-cdn-cache-control', 'cdn-cache-control']), { cacheControl: new Map([['max-age', '2']]), useExpires: false });
    const fallback = responseDirectives(headers, ['a-cdn-cache-control']);
    assert.equal(fallback.cacheControl.get('max-age'), '3');
    assert.equal(fallback.useExpires, true);
  });
});

describe('negotiation fields in the secondary key', () => {
  const key = (name: string, value: string) => varyValues([name], new Headers({ [name]: value }))[0];

  it('folds case, order among equal weights, whitespace, duplicates and q spellings', () => {
    assert.equal(key('accept-language', 'eN, De'), key('accept-language', 'de,en'));
    assert.equal(key('accept-language', 'de;q=0.50, en'), 'en,de;q=0.5');
    assert.equal(key('accept-encoding', 'br;Q=1.000, GZIP'), 'br,gzip');
    assert.equal(key('accept', 'text/html;level=1, */*;q=0.1'), 'text/html;level=1,*/*;q=0.1');
  });

  it('keeps weights that differ apart, and leaves what it cannot read to whitespace folding', () => {
    assert.notEqual(key('accept-language', 'en;q=0.9, de'), key('accept-language', 'en, de'));
    assert.equal(key('accept', 'text/html;q=2, a/b'), 'text/html;q=2,a/b', 'a malformed q: only whitespace is folded');
    assert.equal(key('accept', 'a/b;x="1,2"'), 'a/b;x="1,2"');
    assert.equal(key('x-other', ' A ,  b '), 'A,b');
  });

  it('reduces Accept-Encoding to the known codings it accepts, and identity;q=0 when it refuses an unencoded body', () => {
    const cases: Array<[string, string]> = [
      ['gzip, deflate, br, zstd', 'br,deflate,gzip,zstd'],
      ['gzip;q=0.5, br', 'br,gzip'],
      ['GZIP, x-gzip;q=0, foo', 'gzip'],
      ['br;q=0, *', 'deflate,gzip,zstd'],
      ['*;q=0', 'identity;q=0'],
      ['*;q=0, identity', ''],
      ['gzip;q=2, gzip;q=abc, junk', ''],
      ['', ''],
    ];
    for (const [value, reduced] of cases) assert.equal(key('accept-encoding', value), reduced, value);
  });

  it('names the languages a request weights highest', () => {
    assert.deepEqual(preferredLanguages('fr;q=0.5, de;q=1.0'), ['de']);
    assert.deepEqual(preferredLanguages('en, DE, fr;q=0.9'), ['de', 'en']);
    assert.deepEqual(preferredLanguages('*, en;q=0.5'), [], 'any language first: no selection');
    assert.deepEqual(preferredLanguages('*;q=0.1, en'), ['en']);
    assert.deepEqual(preferredLanguages('en;q=0'), []);
    assert.deepEqual(preferredLanguages(null), []);
  });
});
