import { gunzipSync, gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { zlibCompressor } from '../../runtimes/node/index.ts';
import { CompressionId, fflateDeflate } from '../../src/codec/compression.ts';
import { decodeEnvelope } from '../../src/codec/envelope.ts';
import { createCache, type Compressor } from '../../src/index.ts';

const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, sku: `SKU-${i % 40}`, title: `Item number ${i}`, inStock: i % 3 === 0 }));

describe('pluggable compression', () => {
  it("node:zlib deflate and the built-in fflate read each other's entries (same format, same id)", async () => {
    const store = memoryStore();
    const server = createCache({ store, prefix: 'z', compression: { compressor: zlibCompressor() } });
    const edge = createCache({ store, prefix: 'z' });
    await server.set('from-server', rows);
    await edge.set('from-edge', rows);
    expect(decodeEnvelope((await store.get('z:from-server'))!).compressionId).toBe(CompressionId.Deflate);
    expect(await edge.get('from-server')).toEqual(rows);
    expect(await server.get('from-edge')).toEqual(rows);
  });

  it('brotli round-trips and is smaller than deflate on repetitive rows', async () => {
    const store = memoryStore();
    const brotli = createCache({ store, prefix: 'b', compression: { compressor: zlibCompressor({ format: 'brotli', level: 5 }) } });
    const deflate = createCache({ store, prefix: 'd', compression: { compressor: fflateDeflate(6) } });
    await brotli.set('rows', rows);
    await deflate.set('rows', rows);
    expect(decodeEnvelope((await store.get('b:rows'))!).compressionId).toBe(CompressionId.Brotli);
    expect(await brotli.get('rows')).toEqual(rows);
    expect((await store.get('b:rows'))!.length).toBeLessThan((await store.get('d:rows'))!.length);
  });

  it('an entry in a format this reader has no compressor for is a counted miss, not a throw', async () => {
    const store = memoryStore();
    await createCache({ store, prefix: 'x', compression: { compressor: zlibCompressor({ format: 'brotli' }) } }).set('rows', rows);
    const edge = createCache({ store, prefix: 'x' });
    expect(await edge.get('rows')).toBeUndefined();
    expect(edge.stats().corrupt).toBe(1);
  });

  it('uses a custom compressor under its own id', async () => {
    const store = memoryStore();
    const gzip: Compressor = { id: 3, name: 'gzip (fflate)', compress: (b) => gzipSync(b), decompress: (b) => gunzipSync(b) };
    const cache = createCache({ store, prefix: 'c', compression: { compressor: gzip } });
    await cache.set('rows', rows);
    expect(decodeEnvelope((await store.get('c:rows'))!).compressionId).toBe(3);
    expect(await cache.get('rows')).toEqual(rows);
  });

  it.each([
    ['an id of 0', { compressor: { id: 0, name: 'x', compress: (b: Uint8Array) => b, decompress: (b: Uint8Array) => b } }, /id must be an integer from 1 to 15/],
    ['an id of 16', { compressor: { id: 16, name: 'x', compress: (b: Uint8Array) => b, decompress: (b: Uint8Array) => b } }, /id must be an integer from 1 to 15/],
    ['a compressor without decompress', { compressor: { id: 3, name: 'x', compress: (b: Uint8Array) => b } }, /compress\(\) and decompress\(\)/],
    ['a level next to a compressor', { compressor: fflateDeflate(), level: 5 }, /level applies to the default deflate only/],
  ])('rejects %s', (_, compression, message) => {
    expect(() => createCache({ store: memoryStore(), compression: compression as never })).toThrow(message);
  });

  it.each([
    [{ format: 'deflate', level: 0 }, /deflate level/],
    [{ format: 'brotli', level: 12 }, /brotli quality/],
    [{ format: 'zstd' }, /format must be/],
  ])('zlibCompressor rejects %j', (options, message) => {
    expect(() => zlibCompressor(options as never)).toThrow(message);
  });
});
