/**
 * Calls that name more keys than one command takes (issue 27, "also seen"): a getMany of more
 * keys than one reply may hold was one MGET the parser refused, which dropped the connection for
 * every concurrent call. Each command now names at most MAX_KEYS_PER_COMMAND keys: counted on a
 * fake server, and read back from a real redis-server past the parser's bound.
 */
import Valkey from 'iovalkey';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_KEYS_PER_COMMAND } from '../../adapters/valkey/commands.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { DEFAULT_LIMITS } from '../../adapters/valkey/resp/parser.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';
import { fakeValkey } from './valkey-fake-server.ts';

describe('valkey store: no command names more than MAX_KEYS_PER_COMMAND keys', () => {
  const n = 2 * MAX_KEYS_PER_COMMAND + 7;
  const keys = Array.from({ length: n }, (_, i) => `k${i}`);

  it('splits a getMany, a setMany, a delete and expireEntries into commands of at most that many keys, in order, in one write', async () => {
    const fake = await fakeValkey();
    const store = valkeyStore(fake.url);
    try {
      await store.setMany(keys.map((key, i) => ({ key, value: bytes(`v${i}`) })));
      // A run of reads spanning pieces: a get, a getMany split over three MGETs, a get.
      const [before, many, after] = await store.pipeline([
        { kind: 'get', key: 'k5' },
        { kind: 'getMany', keys },
        { kind: 'get', key: `k${n - 1}` },
      ]);
      expect(text(before as Uint8Array)).toBe('v5');
      const values = many as Array<Uint8Array | undefined>;
      expect(values).toHaveLength(n);
      for (const i of [0, MAX_KEYS_PER_COMMAND - 2, MAX_KEYS_PER_COMMAND - 1, MAX_KEYS_PER_COMMAND, n - 1]) expect(text(values[i])).toBe(`v${i}`);
      expect(text(after as Uint8Array)).toBe(`v${n - 1}`);
      expect(await store.delete(keys)).toBe(n);
      expect(await store.expireEntries({ keys, now: 1 })).toBe(0);
      const commands = fake.accepted[0]!.commands;
      const sizes = (name: string) => commands.filter((command) => command[0] === name).map((command) => command.length - 1);
      expect(sizes('MSET')).toEqual([2 * MAX_KEYS_PER_COMMAND, 2 * MAX_KEYS_PER_COMMAND, 2 * 7]);
      expect(sizes('MGET')).toEqual([MAX_KEYS_PER_COMMAND, MAX_KEYS_PER_COMMAND, 9]);
      expect(sizes('DEL')).toEqual([MAX_KEYS_PER_COMMAND, MAX_KEYS_PER_COMMAND, 7]);
      expect(sizes('EVAL').map((size) => size - 3)).toEqual([MAX_KEYS_PER_COMMAND, MAX_KEYS_PER_COMMAND, 7]);
    } finally {
      await store.close();
      await fake.close();
    }
  });

  it('answers getMany lists that are empty or end where a piece ends', async () => {
    const fake = await fakeValkey();
    const store = valkeyStore(fake.url);
    try {
      fake.data.set(`k${MAX_KEYS_PER_COMMAND - 1}`, 'edge');
      const results = await store.pipeline([
        { kind: 'getMany', keys: keys.slice(0, MAX_KEYS_PER_COMMAND) },
        { kind: 'getMany', keys: [] },
        { kind: 'getMany', keys: ['k1'] },
        { kind: 'getMany', keys: [] },
      ]);
      expect(results.map((list) => (list as unknown[]).length)).toEqual([MAX_KEYS_PER_COMMAND, 0, 1, 0]);
      expect(text((results[0] as Array<Uint8Array | undefined>)[MAX_KEYS_PER_COMMAND - 1])).toBe('edge');
    } finally {
      await store.close();
      await fake.close();
    }
  });
});

describe.runIf(requireRedis())('valkey store: a getMany past what one reply may hold, on a real server', () => {
  const admin = new Valkey(redisUrl!);
  const prefix = `chunking-${Date.now().toString(36)}`;
  afterAll(async () => {
    await admin.del(`${prefix}:0`, `${prefix}:middle`, `${prefix}:last`);
    admin.disconnect();
  });

  it(`reads ${DEFAULT_LIMITS.maxReplyElements + 50_000} keys in order while another call on the connection is answered`, async () => {
    const count = DEFAULT_LIMITS.maxReplyElements + 50_000;
    const keys = Array.from({ length: count }, (_, i) => `${prefix}:${i}`);
    keys[0] = `${prefix}:0`;
    keys[700_000] = `${prefix}:middle`;
    keys[count - 1] = `${prefix}:last`;
    await admin.mset(`${prefix}:0`, 'first', `${prefix}:middle`, 'middle', `${prefix}:last`, 'last');
    const store = valkeyStore(redisUrl!);
    try {
      const [values, beside] = await Promise.all([store.getMany(keys), store.get(`${prefix}:middle`)]);
      expect(values).toHaveLength(count);
      expect([text(values[0]), text(values[700_000]), text(values[count - 1])]).toEqual(['first', 'middle', 'last']);
      expect(values.filter((value) => value !== undefined)).toHaveLength(3);
      expect(text(beside)).toBe('middle');
    } finally {
      await store.close();
    }
  }, 120_000);
});
