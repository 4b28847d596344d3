// Issue 23, item 5: storing a tagged response costs the same whatever how many responses carry
// the tag (no key list read, decoded and rewritten per store), and purging the tag still reaches
// every one of them, from any process sharing the store.
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { StoreLayer } from '../../src/cache/path/layer.ts';
import { httpCache } from '../../src/http/index.ts';
import type { StoreEntry } from '../../src/store/types.ts';

/** Counts the bytes written to the store it wraps. */
class ByteCountingStore extends StoreLayer {
  written = 0;
  override set(key: string, value: Uint8Array, ttlMs?: number) {
    this.written += key.length + value.byteLength;
    return super.set(key, value, ttlMs);
  }
  override setMany(entries: readonly StoreEntry[]) {
    for (const e of entries) this.written += e.key.length + e.value.byteLength;
    return super.setMany(entries);
  }
}

const tagged = async () => new Response('<p>page</p>', { headers: { 'cache-control': 'max-age=600', 'cache-tag': 'page, site' } });
const pad = 'x'.repeat(1024);

describe('tagged responses', () => {
  it('cost the same bytes to store for the 1st and the 300th response of a tag', async () => {
    const store = new ByteCountingStore(memoryStore());
    const cached = httpCache(tagged, { store });
    const writtenFor = async (i: number) => {
      const before = store.written;
      await (await cached(new Request(`http://x/page?q=${i}&pad=${pad}`))).arrayBuffer();
      await cached.idle();
      return store.written - before;
    };
    const first = await writtenFor(0);
    for (let i = 1; i < 299; i++) await writtenFor(i);
    const last = await writtenFor(299);
    assert.ok(last <= first + 16, `the 300th tagged response wrote ${last} bytes, the first ${first}`);
    assert.equal(await cached.purge({ tag: 'page' }), 1);
    for (const i of [0, 150, 299]) {
      const res = await cached(new Request(`http://x/page?q=${i}&pad=${pad}`));
      assert.match(res.headers.get('cache-status') ?? '', /fwd=uri-miss/, `response ${i} was purged`);
      await res.arrayBuffer();
    }
    await cached.close();
    await store.close();
  });

  it('are purged for every process sharing the store', async () => {
    const store = memoryStore();
    const a = httpCache(tagged, { store });
    const b = httpCache(tagged, { store });
    await (await a(new Request('http://x/shared'))).arrayBuffer();
    await a.idle();
    const hit = await a(new Request('http://x/shared'));
    assert.match(hit.headers.get('cache-status') ?? '', /hit/);
    await hit.arrayBuffer();
    await b.purge({ tag: 'site' });
    const after = await a(new Request('http://x/shared'));
    assert.match(after.headers.get('cache-status') ?? '', /fwd=uri-miss/);
    await after.arrayBuffer();
    await a.close();
    await b.close();
    await store.close();
  });

  it('are served and not stored with more than 64 tags', async () => {
    const store = memoryStore();
    const many = Array.from({ length: 65 }, (_, i) => `t${i}`).join(', ');
    const cached = httpCache(async () => new Response('x', { headers: { 'cache-control': 'max-age=60', 'cache-tag': many } }), { store });
    const res = await cached(new Request('http://x/many'));
    assert.equal(await res.text(), 'x');
    assert.match(res.headers.get('cache-status') ?? '', /detail="too-many-tags"/);
    await cached.close();
    await store.close();
  });
});
