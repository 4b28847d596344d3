import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { utf8Text } from '../../src/util/bytes.ts';

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
