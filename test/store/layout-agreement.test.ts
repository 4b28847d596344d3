/**
 * The stored formats have one definition (src/store/layout/) and a second one in Lua, built
 * from its constants (adapters/shared/redis-protocol.ts). This file holds the two to each other
 * on a real redis-server, byte for byte: the expire script runs over envelopes the TypeScript
 * codec wrote and must leave exactly what staledEnvelope makes of them, which the codec then
 * reads back; the generation scripts (through the Valkey store) and their TypeScript twin
 * (through the memory store, adapters/shared/generation-cells.ts) run one sequence of moves
 * and must leave the same counters and soft records and answer the same states, and so must
 * the engine's fallback for stores without the capability (src/cache/path/generations.ts).
 */
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { EXPIRE_ENTRIES_LUA } from '../../adapters/shared/redis-protocol.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { GenerationLayer } from '../../src/cache/path/generations.ts';
import { StoreLayer } from '../../src/cache/path/layer.ts';
import { tagKeys } from '../../src/cache/key-space.ts';
import { decodeEnvelope, encodeEnvelope } from '../../src/codec/envelope.ts';
import { CREATED_AT_OFFSET, FIXED_BYTES_V1, FRESH_FOR_OFFSET, MAGIC, STALE_FOR_OFFSET, VERSION_1, VERSION_OFFSET, VERSION_PREFIX_BYTES, staledEnvelope } from '../../src/store/layout/envelope.ts';
import type { GenerationWrite, Store } from '../../src/store/types.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

const prefix = `layout-agreement:${process.pid}:`;
const now = 1_700_000_100_000;
const payload = new Uint8Array([9, 8, 7, 6, 5]);
const base = { serializerId: 1, compressionId: 0, tags: [{ tag: 'user:1', generation: 4294967301 }], payload };

/** A version 1 envelope (cachette 0.1): the three times and a tag count, then the payload. */
function versionOne(createdAt: number, freshFor: number, staleFor: number): Uint8Array {
  const bytes = new Uint8Array(FIXED_BYTES_V1 + payload.length);
  const view = new DataView(bytes.buffer);
  bytes[0] = MAGIC;
  bytes[VERSION_OFFSET] = VERSION_1;
  view.setFloat64(CREATED_AT_OFFSET, createdAt);
  view.setFloat64(FRESH_FOR_OFFSET, freshFor);
  view.setFloat64(STALE_FOR_OFFSET, staleFor);
  bytes.set(payload, FIXED_BYTES_V1);
  return bytes;
}

/** An envelope the codec wrote with its created-at replaced (values the codec itself would never write). */
function withCreatedAt(createdAt: number): Uint8Array {
  const bytes = encodeEnvelope({ ...base, createdAt: 0, freshFor: 60_000, staleFor: 1000 });
  new DataView(bytes.buffer).setFloat64(CREATED_AT_OFFSET, createdAt);
  return bytes;
}

/** Stored bytes, by name: what the codec writes, what older versions wrote, and what no one should. */
const ENTRIES: Record<string, Uint8Array> = {
  fresh: encodeEnvelope({ ...base, createdAt: now - 500, freshFor: 60_000, staleFor: 30_000 }),
  'fresh, no tags, text payload': encodeEnvelope({ ...base, tags: [], serializerId: 2, createdAt: now - 1, freshFor: 10, staleFor: 600_000 }),
  'fresh, endless grace': encodeEnvelope({ ...base, createdAt: now - 500, freshFor: 60_000, staleFor: Infinity }),
  'never expires': encodeEnvelope({ ...base, createdAt: now - 500, freshFor: Infinity, staleFor: Infinity }),
  'created ahead of now (a skewed writer)': encodeEnvelope({ ...base, createdAt: now + 5000, freshFor: 60_000, staleFor: 2500.5 }),
  'fresh, a grace of a fraction of a ms more': encodeEnvelope({ ...base, createdAt: now - 500, freshFor: 60_000, staleFor: 90_000.25 }),
  'compressed flag': encodeEnvelope({ ...base, compressionId: 1, size: 100, createdAt: now - 500, freshFor: 60_000, staleFor: 30_000 }),
  'stale already': encodeEnvelope({ ...base, createdAt: now - 70_000, freshFor: 60_000, staleFor: 30_000 }),
  'turns stale right now': encodeEnvelope({ ...base, createdAt: now - 60_000, freshFor: 60_000, staleFor: 30_000 }),
  'version 1, fresh': versionOne(now - 500, 60_000, 30_000),
  'version 1, stale': versionOne(now - 70_000, 60_000, 30_000),
  'version 1 header only': versionOne(now - 500, 60_000, 30_000).subarray(0, FIXED_BYTES_V1),
  'one byte short of a header': versionOne(now - 500, 60_000, 30_000).subarray(0, FIXED_BYTES_V1 - 1),
  'infinite created-at': withCreatedAt(Infinity),
  'NaN created-at': withCreatedAt(Number.NaN),
  'negative fresh-for': (() => {
    const bytes = encodeEnvelope({ ...base, createdAt: now - 500, freshFor: 60_000, staleFor: 30_000 });
    new DataView(bytes.buffer).setFloat64(FRESH_FOR_OFFSET, -1);
    return bytes;
  })(),
  'unknown version': (() => {
    const bytes = encodeEnvelope({ ...base, createdAt: now - 500, freshFor: 60_000, staleFor: 30_000 });
    bytes[VERSION_OFFSET] = 3;
    return bytes;
  })(),
  'a counter': new TextEncoder().encode('123456789012345678901234567890123456'),
};

describe.runIf(requireRedis())('the stored formats, TypeScript and Lua on one redis-server', () => {
  let raw: Valkey;
  beforeAll(() => {
    raw = new Valkey(redisUrl!);
  });
  afterAll(async () => {
    const keys = await raw.keys(`${prefix}*`);
    if (keys.length > 0) await raw.del(...keys);
    raw.disconnect();
  });

  it('the expire script leaves exactly the bytes staledEnvelope makes, and the codec reads them back', async () => {
    const names = Object.keys(ENTRIES);
    const keys = names.map((name) => `${prefix}expire:${name}`);
    for (let i = 0; i < names.length; i++) await raw.set(keys[i]!, Buffer.from(ENTRIES[names[i]!]!));
    const marked = await raw.eval(EXPIRE_ENTRIES_LUA, keys.length, ...keys, String(now));
    const expected = names.map((name) => staledEnvelope(ENTRIES[name]!, now));
    const agreed: string[] = [];
    for (let i = 0; i < names.length; i++) {
      const written = new Uint8Array((await raw.getBuffer(keys[i]!))!);
      const ttl = await raw.pttl(keys[i]!);
      const staled = expected[i];
      const want = staled === undefined ? ENTRIES[names[i]!]! : staled.bytes;
      expect({ name: names[i], bytes: Buffer.from(written).toString('hex') }).toEqual({ name: names[i], bytes: Buffer.from(want).toString('hex') });
      if (staled?.ttlMs === undefined) expect({ name: names[i], ttl }).toEqual({ name: names[i], ttl: -1 });
      else expect(ttl > 0 && ttl <= staled.ttlMs, `${names[i]}: a TTL of its grace (${staled.ttlMs} ms), got ${ttl}`).toBe(true);
      if (staled !== undefined && ENTRIES[names[i]!]![VERSION_OFFSET] !== VERSION_1) {
        const before = decodeEnvelope(ENTRIES[names[i]!]!);
        expect(decodeEnvelope(written)).toEqual({ ...before, createdAt: Math.min(before.createdAt, now), freshFor: now - Math.min(before.createdAt, now) });
      }
      agreed.push(names[i]!);
    }
    expect(marked).toBe(expected.filter((s) => s !== undefined).length);
    // The table covers both outcomes, endless graces and TTLs alike.
    expect(expected.filter((s) => s !== undefined).length).toBeGreaterThanOrEqual(6);
    expect(expected.filter((s) => s === undefined).length).toBeGreaterThanOrEqual(6);
    expect(agreed).toEqual(names);
  });

  it('the generation scripts, their TypeScript twin and the fallback leave the same counters and soft records, and read the same states', async () => {
    const valkey = valkeyStore(redisUrl!);
    const memory = memoryStore();
    const fallback = new GenerationLayer(new WithoutGenerations(memoryStore()));
    const targets: Array<{ name: string; store: Store }> = [
      { name: 'lua', store: valkey },
      { name: 'generation-cells', store: memory },
      { name: 'fallback', store: fallback },
    ];
    const tag = tagKeys(`${prefix}gen:`, 'users');
    const other = tagKeys(`${prefix}gen:`, 'posts');
    const entry = `${prefix}gen:entry`;
    const envelope = encodeEnvelope({ ...base, createdAt: now, freshFor: 1000, staleFor: 0 });
    const epoch = 2 ** 33 + 12345;
    /** The counters and soft records as stored, and what a read of the entry (with and without its known prefix) and the tags answers. */
    const snapshot = async (store: Store, storedOnly: boolean): Promise<Snapshot> => {
      const stored = (await store.getMany([tag.generation, tag.soft, other.generation, other.soft])).map((b) => (b === undefined ? undefined : new TextDecoder().decode(b)));
      if (storedOnly) return { stored, values: [], tags: [], fenced: [] };
      const read = await store.readWithGenerations!({ keys: [entry, entry], knownPrefixes: [envelope.subarray(0, VERSION_PREFIX_BYTES), undefined], tags: [tag, other], epoch });
      return {
        stored,
        values: read.values.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)),
        // Fences are the scripts' sorted set and the cells' JSON record: compared by what they answer, not by their bytes.
        tags: read.tags.map(({ generation, soft }) => ({ generation, soft })),
        fenced: read.tags.map((state) => state.fenced),
      };
    };
    const steps: Array<GenerationWrite | { set: string; value: string } | { delete: string }> = [
      { action: 'soft', tags: [tag], epoch, now: 1000 },
      { action: 'soft', tags: [tag, other], epoch, now: 2000.9 },
      { action: 'soft', tags: [tag], epoch, now: -5 },
      { action: 'bump', tags: [tag], epoch },
      { action: 'soft', tags: [tag], epoch, now: 3000 },
      { action: 'hold', tags: [tag], epoch, token: 'w', ttlMs: 600_000 },
      { action: 'commit', tags: [tag], epoch, token: 'w' },
      { action: 'soft', tags: [tag], epoch, now: 4000 },
      { set: tag.soft, value: 'garbage' },
      { action: 'soft', tags: [tag], epoch, now: 5000 },
      { set: tag.soft, value: '1:2:3' },
      { action: 'soft', tags: [tag], epoch, now: 6000 },
      { delete: other.generation },
      { action: 'soft', tags: [other], epoch, now: 7000 },
      { action: 'release', tags: [tag], epoch, token: 'nobody' },
    ];
    try {
      for (const { store } of targets) {
        await store.set(entry, envelope);
        await store.delete([tag.generation, tag.soft, tag.fence, other.generation, other.soft, other.fence]);
      }
      const seen: string[] = [];
      for (const step of steps) {
        const after: Record<string, Snapshot> = {};
        for (const { name, store } of targets) {
          if ('set' in step) await store.set(step.set, new TextEncoder().encode(step.value));
          else if ('delete' in step) await store.delete([step.delete]);
          else await store.writeGenerations!(step);
          // A read creates a missing counter: after a delete, the next move must find it missing.
          after[name] = await snapshot(store, 'delete' in step);
        }
        const label = JSON.stringify(step);
        expect({ step: label, cells: after['generation-cells'] }).toEqual({ step: label, cells: after.lua });
        // A store without the capability holds no write leases: its reads are never fenced.
        expect({ step: label, fallback: { ...after.fallback, fenced: after.lua!.fenced } }).toEqual({ step: label, fallback: after.lua });
        expect(after.fallback!.fenced.every((f) => f === false)).toBe(true);
        seen.push(label);
      }
      expect(seen).toHaveLength(steps.length);
      expect(steps.some((step) => 'action' in step && step.action === 'hold')).toBe(true);
    } finally {
      await valkey.close();
      await memory.close();
    }
  });
});

/** What one store holds and answers after a step. */
interface Snapshot {
  stored: Array<string | undefined>;
  values: Array<string | undefined>;
  tags: Array<{ generation: number; soft: unknown }>;
  fenced: boolean[];
}

/** A store that hides the generation capability of the one it wraps: the engine's fallback runs over it. */
class WithoutGenerations extends StoreLayer {
  constructor(next: Store) {
    super(next);
    this.readWithGenerations = undefined;
    this.writeGenerations = undefined;
  }
}
