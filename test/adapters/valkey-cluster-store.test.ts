/**
 * How the cluster store folds a tick's ops per slot (one MGET or MSET per slot, native commands
 * for expiring writes, deletes and increments, answers stitched back in call order, a bad op
 * failing alone), how it takes its options, and how it clears. Against the local Redis Cluster
 * the test setup builds; commands are counted as the store hands them to the node connections
 * (or to the cluster client), so calls of other test files on the shared cluster do not disturb
 * counts.
 */
import { Cluster, type Command, type Redis } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore, ValkeyClusterStore } from '../../adapters/valkey/index.ts';
import { hashSlot } from '../../adapters/valkey/hash-slot.ts';
import { StoreRefusedError } from '../../src/store/index.ts';
import type { StoreOp } from '../../src/store/types.ts';
import { clusterNodes, requireCluster } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';

describe('valkey cluster store options', () => {
  it.each([
    ['an empty list', [], /non-empty list of nodes/],
    ['a node without a port number', ['127.0.0.1:http'], /is not a URL|no valid port/],
    ['a node of another kind', [42], /a node must be a URL, "host:port" or \{ host, port \}, got number/],
    ['an object without a host', [{ port: 7000 }], /has no host/],
    ['a port out of range', [{ host: 'h', port: 70000 }], /no valid port/],
    ['URLs that disagree on credentials', ['redis://a:1@h:7000', 'redis://b:2@h:7001'], /disagree on credentials or TLS/],
    ['something that is not a list', 'h:7000', /must be a list of nodes .* or an iovalkey Cluster, got string "h:7000"/],
  ])('rejects %s with a TypeError that says what is accepted', (_, cluster, message) => {
    expect(() => valkeyStore({ cluster } as never)).toThrow(TypeError);
    expect(() => valkeyStore({ cluster } as never)).toThrow(message);
  });

  it('refuses "connection" and "cluster" together', () => {
    expect(() => valkeyStore({ cluster: ['h:7000'], connection: 'redis://h:7000' } as never)).toThrow(/not both/);
  });
});

describe.runIf(requireCluster())('valkey cluster store', () => {
  const seeds = () => clusterNodes!.split(',');
  const ns = `vcs-${Date.now().toString(36)}`;
  let store: ValkeyClusterStore<Cluster>;
  /** Names of the commands the client sent since the last reset, in order. */
  let sent: string[] = [];
  beforeAll(async () => {
    store = valkeyStore<Cluster>({ cluster: seeds() });
    // Every command the store sends, whether straight to a node or through the cluster client; a
    // command the cluster client forwards to a node is counted once.
    const count = (client: Redis | Cluster) => {
      const target = client as { sendCommand(command: Command, ...rest: unknown[]): unknown };
      const original = target.sendCommand.bind(client);
      target.sendCommand = (command, ...rest) => {
        if (client === store.client || !forwarding) sent.push(command.name);
        if (client !== store.client) return original(command, ...rest);
        forwarding = true;
        try {
          return original(command, ...rest);
        } finally {
          forwarding = false;
        }
      };
    };
    let forwarding = false;
    count(store.client);
    await store.client.ping();
    for (const node of store.client.nodes('all')) count(node);
    store.client.on('+node', count);
    // Each script meets each master once (EVAL, then EVALSHA): load them so the counts below are steady.
    const warm: StoreOp[] = [];
    for (const tag of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
      for (let i = 0; i < 3; i++) warm.push({ kind: 'incr', key: `${ns}:{warm-${tag}}${i}`, by: 1 });
    }
    await store.pipeline(warm);
    await store.pipeline(warm.map((op) => ({ kind: 'delete', keys: [(op as { key: string }).key] })));
    await store.setMany(warm.map((op) => ({ key: (op as { key: string }).key, value: bytes('x'), ttlMs: 1000 })));
  });
  afterAll(async () => {
    await store.clear(`${ns}:`);
    await store.close();
  });
  const reset = () => void (sent = []);
  const tally = () => {
    const counts: Record<string, number> = {};
    for (const name of sent) counts[name] = (counts[name] ?? 0) + 1;
    return counts;
  };
  const scripts = (counts: Record<string, number>) => (counts.evalsha ?? 0) + (counts.eval ?? 0);

  it('reads a tick as one MGET per slot (a GET for a lone key), answers in call order', async () => {
    const tagged = (tag: string) => Array.from({ length: 10 }, (_, i) => `${ns}:{${tag}}${i}`);
    const a = tagged('ra');
    const b = tagged('rb');
    const loose = [`${ns}:loose1`, `${ns}:loose2`, `${ns}:loose3`];
    await store.setMany([...a, ...b, ...loose].filter((_, i) => i % 2 === 0).map((key) => ({ key, value: bytes(`v:${key}`) })));
    const all = [...a, ...b, ...loose];
    const expected = (key: string) => (all.indexOf(key) % 2 === 0 ? `v:${key}` : undefined);
    reset();
    const ops: StoreOp[] = [{ kind: 'getMany', keys: a }, ...b.map((key) => ({ kind: 'get' as const, key })), { kind: 'getMany', keys: [...loose, a[0]!] }, { kind: 'get', key: b[0]! }];
    const results = await store.pipeline(ops);
    const asText = (v: unknown) => (v === undefined ? undefined : text(v as Uint8Array));
    expect((results[0] as Uint8Array[]).map(asText)).toEqual(a.map(expected));
    expect(results.slice(1, 11).map(asText)).toEqual(b.map(expected));
    expect((results[11] as Uint8Array[]).map(asText)).toEqual([...loose, a[0]!].map(expected));
    expect(asText(results[12])).toEqual(expected(b[0]!));
    const looseSlots = new Set(loose.map(hashSlot)).size;
    expect(tally()).toEqual({ mget: 2, ...(looseSlots > 0 ? { get: looseSlots } : {}) });
  });

  it('tag generations and write fences: one script per slot of the keys and tags, each tag read and moved atomically in its own', async () => {
    const tag = (name: string) => ({ generation: `${ns}:#{tag:${name}}:gen`, fence: `${ns}:#{tag:${name}}:fence`, soft: `${ns}:#{tag:${name}}:soft` });
    const tags = ['ga', 'gb', 'gc', 'gd'].map(tag);
    const keys = [`${ns}:{ea}k`, `${ns}:{eb}k`, `${ns}:{ea}none`];
    await store.setMany([keys[0]!, keys[1]!].map((key) => ({ key, value: bytes(`v:${key}`) })));
    const slots = new Set([...keys, ...tags.map((t) => t.generation)].map(hashSlot));
    expect(slots.size).toBeGreaterThan(3);
    reset();
    const first = await store.readWithGenerations({ keys, tags, epoch: 1000 });
    expect(scripts(tally())).toBe(slots.size);
    expect(first.values.map((v) => (v instanceof Uint8Array ? text(v) : v))).toEqual([`v:${keys[0]}`, `v:${keys[1]}`, undefined]);
    expect(first.tags).toEqual(tags.map(() => ({ generation: 1000, fenced: false })));

    reset();
    await store.writeGenerations({ action: 'hold', tags, epoch: 2000, token: 'w1', ttlMs: 60_000 });
    expect(scripts(tally())).toBe(new Set(tags.map((t) => hashSlot(t.generation))).size);
    const held = await store.readWithGenerations({ keys: [], tags, epoch: 3000 });
    expect(held.tags).toEqual(tags.map(() => ({ generation: 1001, fenced: true })));
    await store.writeGenerations({ action: 'commit', tags, epoch: 2000, token: 'w1' });
    const committed = await store.readWithGenerations({ keys: [keys[1]!], knownPrefixes: [bytes(`v:${keys[1]}`)], tags: [tags[2]!, tags[0]!], epoch: 3000 });
    expect(committed).toEqual({
      values: ['unchanged'],
      tags: [
        { generation: 1002, fenced: false },
        { generation: 1002, fenced: false },
      ],
    });
  });

  it('writes a tick as one MSET per slot, and a SET PX per entry that expires', async () => {
    const keys = ['wa', 'wb', 'wc'].flatMap((tag) => Array.from({ length: 5 }, (_, i) => `${ns}:{${tag}}${i}`));
    reset();
    await store.pipeline([{ kind: 'setMany', entries: keys.map((key) => ({ key, value: bytes('plain') })) }]);
    expect(tally()).toEqual({ mset: 3 });
    reset();
    await store.pipeline(keys.map((key, i) => ({ kind: 'set', key, value: bytes(`ttl${i}`), ...(i % 2 ? { ttlMs: 60_000 } : {}) })));
    expect(tally()).toEqual({ mset: 3, set: 7 });
    expect((await store.getMany(keys)).map((v) => text(v!))).toEqual(keys.map((_, i) => `ttl${i}`));
    expect(await store.client.pttl(keys[1]!)).toBeGreaterThan(50_000);
    expect(await store.client.pttl(keys[0]!)).toBe(-1);
  });

  it('a later write of a key in the same tick wins, with its TTL', async () => {
    const key = `${ns}:{lw}k`;
    await store.pipeline([
      { kind: 'set', key, value: bytes('first'), ttlMs: 100 },
      { kind: 'setMany', entries: [{ key, value: bytes('second') }] },
    ]);
    expect(text((await store.get(key))!)).toBe('second');
    expect(await store.client.pttl(key)).toBe(-1);
  });

  it('increments a tick as one INCRBY per op, a script only for a counter created with a TTL, a bad counter failing alone', async () => {
    const busy = Array.from({ length: 4 }, (_, i) => `${ns}:{ic}${i}`);
    const bad = `${ns}:{ic}text`;
    const lone = `${ns}:{id}lone`;
    await store.set(bad, bytes('not a number'));
    reset();
    const results = await store.pipeline([
      ...busy.map((key, i) => ({ kind: 'incr' as const, key, by: i + 1 })),
      { kind: 'incr', key: bad, by: 1 },
      { kind: 'incr', key: busy[0]!, by: 10, ttlMs: 60_000 },
      { kind: 'incr', key: lone, by: 5, ttlMs: 60_000 },
    ]);
    expect(results.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(results[4]).toBeInstanceOf(StoreRefusedError);
    expect(results.slice(5)).toEqual([11, 5]);
    const counts = tally();
    expect(scripts(counts)).toBe(2); // the two increments with a TTL
    expect(counts.incrby).toBe(5);
    expect(await store.client.pttl(busy[0]!)).toBe(-1); // it existed before the TTL'd increment
    expect(await store.client.pttl(lone)).toBeGreaterThan(50_000);
  });

  it('deletes a tick per slot, each op with how many of its keys existed', async () => {
    const keys = ['da', 'db'].flatMap((tag) => Array.from({ length: 3 }, (_, i) => `${ns}:{${tag}}${i}`));
    const loose = `${ns}:dloose`;
    await store.setMany([...keys, loose].map((key) => ({ key, value: bytes('x') })));
    reset();
    const results = await store.pipeline([
      { kind: 'delete', keys: [keys[0]!, keys[3]!, `${ns}:{da}absent`] },
      { kind: 'delete', keys: [keys[0]!] },
      { kind: 'delete', keys: [keys[1]!, keys[2]!, keys[4]!, keys[5]!, loose] },
      { kind: 'delete', keys: [] },
    ]);
    expect(results).toEqual([2, 0, 5, 0]);
    // One DEL per op and slot: {da} and {db}; {da}; {da}, {db} and the loose key's slot.
    expect(tally()).toEqual({ del: 6 });
    expect(await store.getMany([...keys, loose])).toEqual(Array(7).fill(undefined));
  });

  it('a lone delete is one DEL per slot, counting keys that existed', async () => {
    const keys = [`${ns}:{ld}1`, `${ns}:{ld}2`, `${ns}:{le}1`];
    await store.setMany(keys.slice(0, 2).map((key) => ({ key, value: bytes('x') })));
    reset();
    expect(await store.delete(keys)).toBe(2);
    expect(tally()).toEqual({ del: 2 });
  });

  it('clears a prefix on every master, and only the master of a hash tag given in the prefix', async () => {
    const spread = Array.from({ length: 30 }, (_, i) => `${ns}:clr:${i}`);
    const tagged = [`${ns}:{clrtag}:1`, `${ns}:{clrtag}:2`];
    const kept = `${ns}:clx`;
    await store.setMany([...spread, ...tagged, kept].map((key) => ({ key, value: bytes('x') })));
    expect(new Set(spread.map((key) => store.client.slots[hashSlot(key)]?.[0])).size).toBeGreaterThan(1);
    await store.clear(`${ns}:clr:`);
    expect(await store.getMany([...spread, kept])).toEqual([...Array(30).fill(undefined), expect.any(Uint8Array)]);
    const walked = new Set<string>();
    for (const node of store.client.nodes('master')) {
      const scan = node.scan.bind(node);
      node.scan = ((...args: Parameters<typeof scan>) => {
        walked.add(`${node.options.host}:${node.options.port}`);
        return scan(...args);
      }) as typeof node.scan;
    }
    await store.clear(`${ns}:{clrtag}:`);
    expect(await store.getMany(tagged)).toEqual([undefined, undefined]);
    expect([...walked]).toEqual([store.client.slots[hashSlot('clrtag')]![0]]);
  });

  it('takes an iovalkey Cluster as "cluster" or as "connection", and leaves it open on close()', async () => {
    const client = new Cluster(seeds().map((seed) => ({ host: seed.split(':')[0]!, port: Number(seed.split(':')[1]) })));
    try {
      for (const own of [valkeyStore({ cluster: client }), valkeyStore({ connection: client })]) {
        expect(own).toBeInstanceOf(ValkeyClusterStore);
        await own.set(`${ns}:own`, bytes('mine'));
        await own.close();
        expect(client.status).toBe('ready');
        expect(await client.get(`${ns}:own`)).toBe('mine');
      }
    } finally {
      await client.quit();
    }
  });
});
