import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'vitest';
import { sha256Hex } from '../../src/util/sha256.ts';

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 example digests', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('agrees with node:crypto on every length around the block and padding boundaries, and on non-ASCII text', () => {
    let seed = 7;
    const nextChar = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const pick = seed % 100;
      return pick < 80 ? String.fromCharCode(32 + (seed % 95)) : pick < 95 ? 'é' : '😀';
    };
    for (let length = 0; length <= 300; length++) {
      let text = '';
      while (text.length < length) text += nextChar();
      assert.equal(sha256Hex(text), createHash('sha256').update(text, 'utf8').digest('hex'), `length ${length}`);
    }
    const big = 'a'.repeat(100_000);
    assert.equal(sha256Hex(big), createHash('sha256').update(big).digest('hex'));
  });
});
