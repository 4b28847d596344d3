import { describe, expect, it } from 'vitest';
import type { DecodedEntry } from '../../src/cache/entry-codec.ts';
import { RecordedTags } from '../../src/cache/tiers/recorded-tags.ts';

const entry = (...tags: string[]): DecodedEntry => ({ value: 1, createdAt: 0, freshUntil: Infinity, staleUntil: Infinity, graceMs: 0, tags: tags.map((tag) => ({ tag, generation: 1 })) });

describe('the tags entries recorded, remembered for plain reads', () => {
  it('remembers the tags of a tagged entry, replaces them when they change, and forgets an untagged or absent entry', () => {
    const recorded = new RecordedTags();
    recorded.note('k', entry('a', 'b'));
    expect(recorded.of('k')).toEqual(['a', 'b']);
    recorded.note('k', entry('c'));
    expect(recorded.of('k')).toEqual(['c']);
    recorded.note('k', entry());
    expect(recorded.of('k')).toBeUndefined();
    recorded.note('k', entry('a'));
    recorded.note('k', undefined);
    expect(recorded.of('k')).toBeUndefined();
  });

  it('is bounded by entries and by characters: it starts over instead of growing', () => {
    const recorded = new RecordedTags();
    for (let i = 0; i <= 4096; i++) recorded.note(`k${i}`, entry('t'));
    expect(recorded.of('k0')).toBeUndefined();
    expect(recorded.of('k4096')).toEqual(['t']);
    const long = 'u'.repeat(300_000);
    for (let i = 0; i < 4; i++) recorded.note(`${long}${i}`, entry('t'));
    expect(recorded.of(`${long}0`)).toBeUndefined();
    expect(recorded.of(`${long}3`)).toEqual(['t']);
  });
});
