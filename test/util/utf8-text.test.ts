import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { shortUtf8Text, utf8Text } from '../../src/util/bytes.ts';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('utf8Text', () => {
  it('decodes valid UTF-8, the replacement character U+FFFD itself included', () => {
    for (const text of ['', 'plain ascii', 'é ü 𝄞 😀', 'a\uFFFDb', '\uFFFD'.repeat(3), 'x'.repeat(20_000)]) assert.equal(utf8Text(new TextEncoder().encode(text)), text);
  });

  it('throws a TypeError on bytes that are not UTF-8, as a fatal TextDecoder does', () => {
    const invalid: Array<[string, Uint8Array]> = [
      ['a lone continuation byte', bytes(0x61, 0x80)],
      ['0xff', bytes(0xff)],
      ['a truncated sequence', bytes(0xe2, 0x82)],
      ['an overlong encoding', bytes(0xc0, 0xaf)],
      ['a UTF-16 surrogate', bytes(0xed, 0xa0, 0x80)],
      ['invalid bytes next to a real U+FFFD', bytes(0xef, 0xbf, 0xbd, 0xff)],
    ];
    for (const [name, input] of invalid) assert.throws(() => utf8Text(input), TypeError, name);
  });
});

describe('shortUtf8Text', () => {
  it('reads the text of a span as utf8Text does, ASCII or not, short or long', () => {
    for (const text of ['', 'tag-a', 'user:12345', 'é ü 𝄞 😀', 'a\uFFFDb', 'x'.repeat(64), 'y'.repeat(65), `${'z'.repeat(70)}é`]) {
      const bytes = new Uint8Array([7, 7, ...new TextEncoder().encode(text), 7]);
      assert.equal(shortUtf8Text(bytes, 2, bytes.length - 1), text);
    }
  });

  it('throws a TypeError on a span that is not UTF-8', () => {
    assert.throws(() => shortUtf8Text(bytes(0x61, 0xff, 0x62), 0, 3), TypeError);
    assert.throws(() => shortUtf8Text(bytes(0x61, 0xc3), 0, 2), TypeError);
  });
});
