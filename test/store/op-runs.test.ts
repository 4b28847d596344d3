/**
 * The one op-run grouper (src/store/op-runs.ts) that the engine's fallback and both Valkey stores
 * use: where runs start and end, and how a run's keys, values and entries map back to its ops.
 */
import { describe, expect, it } from 'vitest';
import { readKeyCount, readKeys, runEnd, runKind, spreadReads, writeEntries } from '../../src/store/op-runs.ts';
import type { StoreOp, StoreOpResult } from '../../src/store/types.ts';

const v = (text: string) => new TextEncoder().encode(text);

const ops: StoreOp[] = [
  { kind: 'get', key: 'a' },
  { kind: 'getMany', keys: ['b', 'a'] },
  { kind: 'getMany', keys: [] },
  { kind: 'set', key: 'c', value: v('1') },
  {
    kind: 'setMany',
    entries: [
      { key: 'd', value: v('2'), ttlMs: 10 },
      { key: 'e', value: v('3') },
    ],
  },
  { kind: 'delete', keys: ['a'] },
  { kind: 'delete', keys: ['b', 'c'] },
  { kind: 'incr', key: 'n', by: 1 },
  { kind: 'get', key: 'z' },
];

describe('op runs', () => {
  it('splits a tick into maximal runs of reads, writes, deletes and increments, in order', () => {
    const runs: Array<[string, number, number]> = [];
    for (let start = 0; start < ops.length; ) {
      const end = runEnd(ops, start);
      runs.push([runKind(ops[start]!), start, end]);
      start = end;
    }
    expect(runs).toEqual([
      ['read', 0, 3],
      ['write', 3, 5],
      ['delete', 5, 7],
      ['incr', 7, 8],
      ['read', 8, 9],
    ]);
  });

  it('lists a read run’s keys in order, duplicates kept, and spreads values back over its ops', () => {
    expect(readKeys(ops, 0, 3)).toEqual(['a', 'b', 'a']);
    expect(readKeyCount(ops, 0, 3)).toBe(3);
    const results: StoreOpResult[] = [];
    spreadReads(ops, 0, 3, [v('A'), undefined, v('A')], results);
    expect(results).toEqual([v('A'), [undefined, v('A')], []]);
  });

  it('lists a write run’s entries in order with the op each came from', () => {
    const { entries, owners } = writeEntries(ops, 3, 5);
    expect(entries.map((e) => [e.key, e.ttlMs])).toEqual([
      ['c', undefined],
      ['d', 10],
      ['e', undefined],
    ]);
    expect(owners).toEqual([3, 4, 4]);
  });
});
