/**
 * What README.md and docs/ state about defaults and lists, checked against the code: each of
 * these once disagreed with it (the options of createCache, the events, what close() closes, the
 * default serializer, when payloads are compressed). Also what the pages must not hold: words
 * that mean nothing to a user, and benchmark figures (they live in the bench reports).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, it } from 'vitest';
import { cloudflareKvStore, type KVNamespaceLike } from '../../adapters/cloudflare-kv/index.ts';
import { memoryStore } from '../../adapters/memory/index.ts';
import { TCP_COMPRESSION_THRESHOLD } from '../../adapters/shared/redis-protocol.ts';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/cache/create-cache.ts';
import { StoreLayer } from '../../src/cache/path/layer.ts';
import { decodeEnvelope } from '../../src/codec/envelope.ts';
import { cborSerializer, jsonSerializer } from '../../src/codec/serializers.ts';
import type { Store } from '../../src/store/types.ts';
import { tokenProblem } from '../../products/shared/bearer-token.ts';
import { entrySources } from './entry-sources.ts';
import { documentationPages } from './markdown-snippets.ts';

const root = join(import.meta.dirname, '../..');
const page = (path: string) => readFileSync(join(root, path), 'utf8');

/** The member names of `interface name` in the TypeScript file `path`. */
function interfaceMembers(path: string, name: string): string[] {
  const source = ts.createSourceFile(path, page(path), ts.ScriptTarget.Latest, true);
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  assert.ok(found, `${path} declares no interface ${name}`);
  return found.members.map((member) => (member.name as ts.Identifier).text);
}

/** A memory store that counts close() and may declare a compression threshold. */
class DeclaringStore extends StoreLayer {
  closed = 0;
  override readonly compressionThreshold: number | undefined;

  constructor(compressionThreshold?: number) {
    super(memoryStore());
    this.compressionThreshold = compressionThreshold;
  }

  override close(): Promise<void> {
    this.closed++;
    return super.close();
  }
}

/** A memory store that counts close() and may declare a compression threshold. */
function countingStore(compressionThreshold?: number): DeclaringStore {
  return new DeclaringStore(compressionThreshold);
}

/** The envelope stored under `key` (with the cache's default prefix). */
async function envelopeOf(store: Store, key: string) {
  const bytes = await store.get(`cachette:${key}`);
  assert.ok(bytes, `nothing stored under ${key}`);
  return decodeEnvelope(bytes);
}

describe('what the documentation lists', () => {
  it('docs/cache.md names every option of createCache, and no other', () => {
    const line = /`createCache\(\{ ([^}]+) \}\)`/.exec(page('docs/cache.md'))?.[1];
    assert.ok(line, 'docs/cache.md shows the createCache({ … }) signature');
    assert.deepEqual(line.split(', ').sort(), interfaceMembers('src/cache/options.ts', 'CacheOptions').sort());
  });

  it('docs/observability.md describes every event of the event map, and no other', () => {
    const text = page('docs/observability.md');
    const start = text.indexOf('| event | when | detail |');
    const table = text.slice(start, text.indexOf('\n\n', start));
    const rows = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]!);
    assert.deepEqual(rows.sort(), interfaceMembers('src/cache/events.ts', 'CacheEventMap').sort());
    assert.equal(new Set(rows).size, rows.length, 'each event is described once');
  });

  it('docs/observability.md names every counter of stats()', () => {
    const text = page('docs/observability.md');
    for (const counter of interfaceMembers('src/cache/events.ts', 'CacheStats')) assert.ok(text.includes(`\`${counter}\``), `${counter} is not described`);
  });
});

describe('what the documentation says the cache does', () => {
  it('close() closes the store it was given unless closeStore is false', async () => {
    assert.match(page('docs/cache.md'), /closes the store when this was the last cache over it; `closeStore: false` leaves open a store you close yourself/);
    const store = countingStore();
    await createCache({ store }).close();
    assert.equal(store.closed, 1, 'closeStore defaults to true');
    const kept = countingStore();
    await createCache({ store: kept, closeStore: false }).close();
    assert.equal(kept.closed, 0);
  });

  it('the default serializer is auto: JSON for plain values, CBOR for what JSON would change', async () => {
    assert.match(page('docs/cache.md'), /`auto` \(the default\) writes JSON for plain JSON values and CBOR/);
    const store = countingStore();
    const cache = createCache({ store });
    await cache.set('plain', { name: 'Ada', tags: ['a'] });
    await cache.set('dated', { at: new Date(0) });
    assert.equal((await envelopeOf(store, 'plain')).serializerId, jsonSerializer.id);
    assert.equal((await envelopeOf(store, 'dated')).serializerId, cborSerializer.id);
    await cache.close();
  });

  it('ttlJitter and xfetch are off by default, negativeTtl defaults to the call ttl, negative to undefined and null', async () => {
    const text = page('docs/cache.md');
    assert.match(text, /\| keys written together \| `ttlJitter` \(default off\) \|/);
    assert.match(text, /`refreshAhead`, `xfetch` \(default off\)/);
    assert.match(text, /`negativeTtl` \(default: the call's ttl\), `negative`/);
    assert.match(text, /Default\s+`\(value\) => value === undefined \|\| value === null`/);
    let now = 1_000_000;
    const clock = { now: () => now };
    const cache = createCache({ store: countingStore(), ttl: 100_000, clock, logger: false });
    const keys = Array.from({ length: 50 }, (_, i) => `j${i}`);
    await cache.setMany(keys.map((key) => ({ key, value: 1 })));
    const ttls = await Promise.all(keys.map(async (key) => (await cache.inspect(key)).ttl));
    assert.deepEqual(new Set(ttls), new Set([100_000]), 'no jitter by default');
    let runs = 0;
    const slow = async () => {
      runs++;
      now += 10_000; // a 10 s factory: xfetch would refresh 1 ms before expiry almost surely
      return 'v';
    };
    await cache.getOrSet('x', slow);
    await cache.idle();
    now += 100_000 - 1;
    await cache.getOrSet('x', slow);
    await cache.idle();
    assert.equal(runs, 1, 'no early refresh by default');
    await cache.getOrSet('none', () => null);
    await cache.getOrSet('undef', () => undefined);
    await cache.getOrSet('zero', () => 0);
    await cache.idle();
    assert.equal((await cache.inspect('none')).ttl, 100_000, 'a cached null keeps the call ttl without negativeTtl');
    assert.deepEqual(await Promise.all(['none', 'undef', 'zero'].map(async (key) => (await cache.inspect(key)).negative)), [true, true, false]);
    await cache.close();
  });

  it('graceBackoff defaults to 5 s: a failing source is tried once per 5 s per key while a value is served', async () => {
    const text = page('docs/cache.md');
    assert.match(text, /`staleIfError`, `graceBackoff` \(default 5 s\)/);
    assert.match(text, /Default 5 s: a source that is\s+down is called once per key and process every 5 s/);
    let now = 1_000_000;
    const cache = createCache({ store: countingStore(), ttl: 1000, grace: '1h', clock: { now: () => now }, logger: false });
    await cache.getOrSet('k', () => 'v1');
    await cache.idle();
    let tries = 0;
    const down = async (): Promise<string> => {
      tries++;
      throw new Error('down');
    };
    now += 2000; // stale: served, and one refresh, which fails
    const at = (ms: number) => {
      now += ms;
      return cache.getOrSet('k', down).then(() => cache.idle());
    };
    await at(0);
    assert.equal(tries, 1);
    await at(4999);
    assert.equal(tries, 1, 'not retried within 5 s');
    await at(1);
    assert.equal(tries, 2, 'retried 5 s after the failure');
    await cache.close();
  });

  it("payloads are compressed from the store's threshold: 32 KiB over TCP and KV, 1 KiB over HTTP, never in memory", async () => {
    assert.match(
      page('docs/cache.md'),
      /payloads from 32 KiB are compressed\s+on Valkey, Bun's Redis client and Workers KV, from 1 KiB over HTTP \(Upstash\), never on the\s+memory and SQLite stores/,
    );
    const compressible = (bytes: number) => 'a'.repeat(bytes);
    const tcp = countingStore(32 * 1024);
    const cache = createCache({ store: tcp });
    await cache.set('small', compressible(20 * 1024));
    await cache.set('large', compressible(40 * 1024));
    assert.equal((await envelopeOf(tcp, 'small')).compressionId, 0, '20 KiB stays as it is');
    assert.notEqual((await envelopeOf(tcp, 'large')).compressionId, 0, '40 KiB is compressed');
    await cache.close();

    const memory = countingStore();
    const inMemory = createCache({ store: memory });
    await inMemory.set('large', compressible(40 * 1024));
    assert.equal((await envelopeOf(memory, 'large')).compressionId, 0, 'the memory store declares no threshold');
    await inMemory.close();

    const explicit = countingStore();
    const always = createCache({ store: explicit, compression: true });
    await always.set('two-kib', compressible(2 * 1024));
    assert.notEqual((await envelopeOf(explicit, 'two-kib')).compressionId, 0, 'compression: true compresses from 1 KiB');
    await always.close();

    // What the shipped stores declare (none of them connects before its first call).
    const valkey = valkeyStore({ connection: 'redis://127.0.0.1:1', clientOptions: { lazyConnect: true } });
    assert.equal(valkey.compressionThreshold, 32 * 1024);
    await valkey.close();
    assert.equal(TCP_COMPRESSION_THRESHOLD, 32 * 1024, "Bun's Redis client");
    assert.equal(upstashStore({ url: 'http://127.0.0.1:1', token: 'unused' }).compressionThreshold, 1024);
    const unused = () => Promise.reject(new Error('not called'));
    const kv: KVNamespaceLike = { getWithMetadata: unused, put: unused, delete: unused, list: unused };
    assert.equal(cloudflareKvStore({ namespace: kv }).compressionThreshold, 32 * 1024);
    assert.equal((memoryStore() as Store).compressionThreshold, undefined);
  });
});

describe('what the documentation holds', () => {
  const pages = documentationPages(root).filter((path) => path !== 'docs/API.md');

  it('README is a front door: at most 12 KB', () => {
    const size = Buffer.byteLength(page('README.md'));
    assert.ok(size <= 12 * 1024, `README.md is ${size} bytes`);
  });

  it('uses no words that mean nothing to a user (issue numbers, waves)', () => {
    for (const path of pages) assert.deepEqual(page(path).match(/\bissue \d+|\bthis wave\b|\bwave's\b/gi) ?? [], [], path);
  });

  it('carries no benchmark figures: they live in the bench reports', () => {
    const figure = /\d[\d,.]*\s*(?:k?(?:req|ops|rounds|get|set|calls?)\/s\b|µs\b|×)/g;
    for (const path of pages) assert.deepEqual(page(path).match(figure) ?? [], [], path);
  });
});

describe('what the documentation says about iovalkey', () => {
  // One statement everywhere: a Valkey URL needs no other package (the valkey store speaks RESP
  // on its own connection); iovalkey is needed for a cluster, a client passed in (store.client)
  // and cachette/node/bridge. Pages once said "needs iovalkey" of a plain VALKEY_URL.
  const files = [
    ...documentationPages(root),
    ...readdirSync(join(root, 'examples'))
      .map((name) => `examples/${name}/README.md`)
      .filter((path) => existsSync(join(root, path))),
    'runtimes/shared/server-stores.ts',
  ];
  /** The sentences of a page (of a source: its doc comments) that name iovalkey, with line breaks and comment markers folded away. */
  const sentencesNamingIovalkey = (text: string) =>
    text
      .replace(/^\s*(?:\*|\/\/)\s?/gm, '')
      .split(/\n\s*\n|(?<=[.;])\s+(?=[A-Z`(])|\n(?=\s*(?:[-*]|\d+\.|\|)\s)/)
      .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
      .filter((sentence) => /\biovalkey\b/.test(sentence));
  /** What makes a sentence about iovalkey true: it says that a URL does not need it, or names what does (a cluster, a client passed in, the bridge), or that iovalkey's own call shapes are refused. */
  const qualified = /a URL needs (?:nothing|no other package)|a URL type-checks without it|valkeyStore\(\{ url \}\)|\b(?:for|on) a cluster\b|iovalkey (?:client|`Cluster`)|\bbridge\b|`store\.client`/i;

  it('never says that a Valkey URL needs iovalkey', () => {
    // Pages are read as prose: a code block (and the snippet comment above it) states nothing.
    const wrong = files.flatMap((path) =>
      sentencesNamingIovalkey(path.endsWith('.ts') ? (page(path).match(/\/\*\*[\s\S]*?\*\//g) ?? []).join('\n\n') : page(path).replace(/^(?:<!--.*-->\n)?(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, ''))
        .filter((sentence) => /\bValkey\b|VALKEY_URL|REDIS_URL|\bURL\b|npm install/i.test(sentence) && !qualified.test(sentence))
        .map((sentence) => `${path}: ${sentence}`),
    );
    assert.deepEqual(wrong, []);
  });

  it('says in the install table that a URL needs nothing, and what needs iovalkey', () => {
    assert.match(page('README.md'), /^\| `valkeyStore` on a cluster or with your own client, `cachette\/node\/bridge` \(a URL needs nothing\) \| `iovalkey` \|$/m);
    assert.match(
      page('docs/stores.md'),
      /A URL needs no\s+other package: the store speaks RESP on a connection of its own\. `iovalkey`\s+\(`npm install iovalkey`\) is needed for a cluster, for a client you pass in, for `store\.client`/,
    );
  });
});

describe('what the documentation tells people to type', () => {
  // wrangler.toml's comment once gave `--token dev-token`, which the bridge refuses (16+ characters).
  const files = [...documentationPages(root), ...readdirSync(join(root, 'examples')).map((name) => `examples/${name}/README.md`), 'wrangler.toml'].filter((path) => existsSync(join(root, path)));

  it('gives the bridge tokens it accepts, and the Worker the token the bridge was started with', () => {
    for (const path of files) {
      const text = page(path);
      const started = [...text.matchAll(/--token ([\w.-]+)/g)].map((m) => m[1]!);
      const passed = [...text.matchAll(/UPSTASH_REDIS_REST_TOKEN[:=]([\w.-]+)/g)].map((m) => m[1]!);
      for (const token of [...started, ...passed]) assert.equal(tokenProblem(token), undefined, `${path}: the token ${token}`);
      for (const token of passed) assert.ok(started.includes(token), `${path}: the Worker is given ${token}, which no bridge command there starts with`);
    }
  });
});

describe('what the documentation says each entry point exports', () => {
  // docs/cache.md once said StoreBusyError is exported by `cachette`; it is `cachette/store`'s.
  const sources = entrySources(root);

  it('names only what the entry it names exports', () => {
    const claims = documentationPages(root).flatMap((path) =>
      [...page(path).matchAll(/`(\w+)(?:\(\))?` (?:\(exported by|from) `(cachette(?:\/[\w/-]+)?)`/g)].map((m) => ({ path, name: m[1]!, entry: m[2]! })),
    );
    assert.ok(claims.length >= 3, `${claims.length} claims found`);
    const program = ts.createProgram([...new Set(claims.flatMap((claim) => sources.get(claim.entry) ?? []))], {
      allowImportingTsExtensions: true,
      noEmit: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
    });
    const checker = program.getTypeChecker();
    const exportsOf = (source: string) => {
      const symbol = checker.getSymbolAtLocation(program.getSourceFile(source)!);
      return new Set(symbol ? checker.getExportsOfModule(symbol).map((exported) => exported.name) : []);
    };
    const wrong = claims.filter(({ name, entry }) => {
      const source = sources.get(entry);
      return source === undefined || !exportsOf(source).has(name);
    });
    assert.deepEqual(
      wrong.map(({ path, name, entry }) => `${path}: ${name} from ${entry}`),
      [],
    );
  }, 60_000);
});
