import { Redis } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colocatedKey, hashSlot, hashTagOf, SLOT_COUNT } from '../../adapters/valkey/hash-slot.ts';
import { KeyGroups, WriteGroups } from '../../adapters/valkey/slot-groups.ts';
import { bytes } from '../support/suite-api.ts';
import { clusterNodes, requireCluster } from '../support/redis-env.ts';

/** Keys whose slots the server must agree with: plain, tagged, edge-case tags, beyond ASCII. */
const KEYS = [
  '',
  'a',
  'foo',
  '123456789',
  'cachette:v1:GET:https://example.com/a?b=c',
  '{user1000}.following',
  '{user1000}.followers',
  'foo{}{bar}',
  'foo{{bar}}zap',
  'foo{bar}{zap}',
  '{}',
  '{',
  '}',
  '}{',
  'a{b',
  'a}b{c}',
  'é',
  'ключ',
  '鍵{タグ}',
  '{😀}x',
  'mixed ascii é then {tag é}',
  'x'.repeat(1000),
];

describe('hash slots', () => {
  it('CRC16-XMODEM of "123456789" is the published check value 0x31C3', () => {
    expect(hashSlot('123456789')).toBe(0x31c3 % SLOT_COUNT);
  });

  it('hashes only a non-empty hash tag', () => {
    expect(hashTagOf('{user1000}.following')).toBe('user1000');
    expect(hashTagOf('foo{}{bar}')).toBeUndefined();
    expect(hashTagOf('foo{{bar}}zap')).toBe('{bar');
    expect(hashTagOf('foo{bar}{zap}')).toBe('bar');
    expect(hashTagOf('plain')).toBeUndefined();
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('{user1000}.followers'));
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('user1000'));
  });

  it('colocatedKey gives a key of the same slot, tagged or not', () => {
    for (const key of ['cachette:GET:https://example.com/a', '{tag}rest', 'é/ключ']) {
      const companion = colocatedKey(key, ':lease');
      expect(companion.endsWith(':lease')).toBe(true);
      expect(hashSlot(companion)).toBe(hashSlot(key));
    }
    expect(colocatedKey('{tag}rest', ':x')).toBe('{tag}rest:x');
    expect(colocatedKey('plain', ':x')).toBe('{plain}:x');
  });

  it.each([
    ['an empty key', '', /is empty/],
    ['a key with "}" but no tag', 'a}b', /holds a "}" without a hash tag/],
  ])('colocatedKey refuses %s with a TypeError that names it', (_, key, message) => {
    expect(() => colocatedKey(key, ':x')).toThrow(TypeError);
    expect(() => colocatedKey(key, ':x')).toThrow(message);
  });

  it('KeyGroups groups distinct keys by slot in first-seen order', () => {
    const groups = new KeyGroups();
    for (const key of ['{a}1', 'b', '{a}2', '{a}1', 'b']) groups.add(key);
    expect([...groups.bySlot.entries()]).toEqual([
      [hashSlot('a'), ['{a}1', '{a}2']],
      [hashSlot('b'), ['b']],
    ]);
  });

  it('WriteGroups keeps the last entry of each key and each op once', () => {
    const groups = new WriteGroups();
    groups.add({ key: '{a}1', value: bytes('old') }, 0);
    groups.add({ key: '{a}2', value: bytes('x') }, 1);
    groups.add({ key: '{a}1', value: bytes('new'), ttlMs: 50 }, 1);
    const group = groups.bySlot.get(hashSlot('a'))!;
    expect(group.ops).toEqual([0, 1]);
    expect([...group.entries.keys()]).toEqual(['{a}1', '{a}2']);
    expect(group.entries.get('{a}1')).toEqual({ key: '{a}1', value: bytes('new'), ttlMs: 50 });
  });

  describe.runIf(requireCluster())('against CLUSTER KEYSLOT', () => {
    let node: Redis;
    beforeAll(() => {
      const [host, port] = clusterNodes!.split(',')[0]!.split(':');
      node = new Redis({ host, port: Number(port) });
    });
    afterAll(() => node.quit());

    it('agrees with the server on every key', async () => {
      const random = Array.from({ length: 200 }, (_, i) => `k:${i}:${Math.random().toString(36).slice(2)}`);
      for (const key of [...KEYS, ...random]) {
        expect(hashSlot(key), key).toBe(Number(await node.call('CLUSTER', 'KEYSLOT', key)));
      }
    });
  });
});
