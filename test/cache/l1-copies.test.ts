/**
 * The L1's memory (src/cache/tiers/l1-copies.ts): bounded by entries and by bytes, the least
 * recently used first out as a clock with second chances tells it — a hit marks its copy, and
 * eviction moves a marked copy to the back once instead of evicting it.
 */
import { describe, expect, it } from 'vitest';
import { EntryCodec } from '../../src/cache/entry-codec.ts';
import { L1Copies } from '../../src/cache/tiers/l1-copies.ts';
import { resolveSerializer } from '../../src/codec/serializers.ts';

const codec = new EntryCodec(resolveSerializer('auto'), undefined, 1 << 20);
/** Stored bytes of a value of `length` characters, and what they decode to. */
function stored(key: string, length = 8) {
  const bytes = codec.encode(key, 'x'.repeat(length), Date.now(), 60_000, 0, []);
  return { bytes, entry: codec.decode(bytes)! };
}
function keep(copies: L1Copies, key: string, length?: number) {
  const { bytes, entry } = stored(key, length);
  copies.set(key, bytes, entry);
}
const held = (copies: L1Copies, keys: readonly string[]) => keys.filter((key) => copies.get(key) !== undefined);

describe('L1Copies', () => {
  it('evicts the oldest copy not used since it was kept, and gives a used one a second chance', () => {
    const copies = new L1Copies(3, 1 << 20);
    for (const key of ['a', 'b', 'c']) keep(copies, key);
    expect(copies.get('a')).toBeDefined();
    keep(copies, 'd');
    // b went, not a (used): a was moved behind d, unmarked.
    expect(copies.size).toBe(3);
    keep(copies, 'e');
    // c went (the oldest unused); a still holds its second chance's place.
    expect(copies.size).toBe(3);
    expect(held(copies, ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'd', 'e']);
  });

  it('keeps a copy hit between insertions however many come, within the bound of entries', () => {
    const copies = new L1Copies(2, 1 << 20);
    keep(copies, 'hot');
    for (let i = 0; i < 100; i++) {
      expect(copies.get('hot')).toBeDefined();
      keep(copies, `cold-${i}`);
      expect(copies.size).toBeLessThanOrEqual(2);
    }
    expect(held(copies, ['hot', 'cold-98', 'cold-99'])).toEqual(['hot', 'cold-99']);
  });

  it('holds no more bytes than its bound, a hot copy kept while cold ones go, and the copy just kept even when every other was used', () => {
    const one = stored('k', 1000);
    const size = one.bytes.length + 2 * 'hot'.length;
    const copies = new L1Copies(1000, size * 4);
    keep(copies, 'hot', 1000);
    for (let i = 0; i < 50; i++) {
      copies.get('hot');
      keep(copies, `c${i}`, 1000);
      expect(copies.bytes).toBeLessThanOrEqual(size * 4);
    }
    expect(copies.get('hot')).toBeDefined();
    // Every copy used: one pass unmarks and moves them, the next evicts the oldest of them; the new one stays.
    const four = ['hot', 'c47', 'c48', 'c49'];
    expect(held(copies, four)).toEqual(four);
    keep(copies, 'new', 1000);
    expect(copies.get('new')).toBeDefined();
    expect(held(copies, four)).toHaveLength(3);
    expect(copies.bytes).toBeLessThanOrEqual(size * 4);
  });

  it('refuses a copy larger than its bytes, or too short to hold the version prefix', () => {
    const { bytes, entry } = stored('big', 4000);
    const copies = new L1Copies(10, bytes.length);
    copies.set('big', bytes, entry);
    expect(copies.size).toBe(0);
    copies.set('short', bytes.subarray(0, 3), entry);
    expect(copies.size).toBe(0);
  });
});
