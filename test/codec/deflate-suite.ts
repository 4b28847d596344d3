import assert from 'node:assert/strict';
import { memoryStore } from '../../adapters/memory/index.ts';
import { CompressionId, fflateDeflate, resolveCompression, runtimeZlib, zlibDeflate, type Compressor, type ZlibDeflateFunctions } from '../../src/codec/compression.ts';
import { decodeEnvelope } from '../../src/codec/envelope.ts';
import { createCache } from '../../src/index.ts';
import type { SuiteApi } from '../support/suite-api.ts';

/** Rows shaped like a query result, ~14 KiB as JSON: what the /work bench stores. */
const rows = Array.from({ length: 88 }, (_, i) => ({
  id: 10_000 + i,
  sku: `SKU-${(i * 7919) % 100_000}`,
  title: `item ${i}`,
  category: ['books', 'toys', 'tools'][i % 3],
  price: i * 1.5,
  active: i % 7 !== 0,
}));
const encoder = new TextEncoder();
/** Payloads from empty to several DEFLATE blocks, text and incompressible bytes. */
const payloads: Array<[string, Uint8Array]> = [
  ['empty', new Uint8Array(0)],
  ['one byte', encoder.encode('x')],
  [
    '150 B of JSON',
    encoder.encode(JSON.stringify({ id: 7, name: 'User number 7', email: 'user7@example.com', active: true, roles: ['reader', 'writer'], score: 1007, updatedAt: '2025-01-01T00:00:00.000Z' })),
  ],
  ['the 14 KiB JSON document', encoder.encode(JSON.stringify(rows))],
  ['200 KiB of repeated text', encoder.encode('cachette '.repeat(23_000))],
  ['64 KiB of noise', noise(64 * 1024)],
  // workerd's inflateRawSync failed on sizes between its buffer's doubling steps.
  ['50,000 B of text', encoder.encode('a'.repeat(50_000))],
  ['110,000 B of text', encoder.encode('b'.repeat(110_000))],
];

function noise(length: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = 0x9e3779b9;
  for (let at = 0; at < length; at++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    out[at] = state >>> 24;
  }
  return out;
}

/**
 * The runtime's native raw DEFLATE (node:zlib, reached through process.getBuiltinModule) and
 * the portable fflate write one format: each reads what the other wrote, byte for byte, on every
 * runtime this suite runs on (Node, Bun, Deno, workerd with nodejs_compat).
 */
export function deflateSuite(api: SuiteApi): void {
  const { describe, it } = api;

  describe('native and portable raw DEFLATE', () => {
    const zlib = runtimeZlib();

    it('finds the native zlib of this runtime and makes it the default compressor', () => {
      assert.ok(zlib, 'process.getBuiltinModule("node:zlib") gives deflateRawSync and inflateRawSync here');
      assert.match(resolveCompression(true)!.compressor.name, /node:zlib/);
    });

    const native = (): Compressor => zlibDeflate(zlib!, 1);
    for (const [name, bytes] of payloads) {
      it(`native-written ${name} reads back through fflate, and fflate-written through native`, () => {
        for (const level of [1, 6, 9] as const) {
          const nativePacked = zlibDeflate(zlib!, level).compress(bytes);
          const fflatePacked = fflateDeflate(level).compress(bytes);
          assert.deepEqual(new Uint8Array(fflateDeflate().decompress(nativePacked, bytes.length)), bytes, `level ${level}: fflate reads native`);
          assert.deepEqual(new Uint8Array(native().decompress(fflatePacked, bytes.length)), bytes, `level ${level}: native reads fflate`);
        }
      });
    }

    it('a cache on native zlib and a cache on fflate share one store and read each other', async () => {
      const store = memoryStore();
      const server = createCache({ store, prefix: 'deflate', compression: { compressor: native() } });
      const edge = createCache({ store, prefix: 'deflate', compression: { compressor: fflateDeflate() } });
      await server.set('from-native', rows);
      await edge.set('from-fflate', rows);
      for (const key of ['from-native', 'from-fflate']) {
        const envelope = decodeEnvelope((await store.get(`deflate:${key}`))!);
        assert.equal(envelope.compressionId, CompressionId.Deflate, `${key} is stored deflated`);
        assert.ok(envelope.payload.length < envelope.size / 3, `${key} is smaller than a third of its JSON`);
      }
      assert.deepEqual(await edge.get('from-native'), rows);
      assert.deepEqual(await server.get('from-fflate'), rows);
      assert.equal(server.stats().corrupt + edge.stats().corrupt, 0);
    });

    it('native inflation stops shortly past the size the entry declares, and a lying entry is a counted miss', async () => {
      const big = encoder.encode('a'.repeat(1 << 20));
      assert.throws(() => native().decompress(native().compress(big), 1000), 'inflating 1 MiB into a declared 1000 bytes throws');
      assert.throws(() => native().decompress(encoder.encode('not deflate at all'), 100), 'corrupt input throws');
      const store = memoryStore();
      const cache = createCache({ store, prefix: 'lie', compression: { compressor: native() } });
      await cache.set('rows', rows);
      const stored = (await store.get('lie:rows'))!;
      // The header's size field (bytes 27–30, see src/codec/envelope.ts) shrunk to 100 bytes.
      new DataView(stored.buffer, stored.byteOffset).setUint32(27, 100);
      await store.set('lie:rows', stored);
      assert.equal(await cache.get('rows'), undefined);
      assert.equal(cache.stats().corrupt, 1);
    });

    it('keeps fflate when the runtime has no node:zlib, or one that is not raw DEFLATE', () => {
      const fake = (module: unknown) => ({ process: { getBuiltinModule: (id: string) => (id === 'node:zlib' ? module : undefined) } });
      const identity: ZlibDeflateFunctions = { deflateRawSync: (bytes) => bytes, inflateRawSync: (bytes) => bytes };
      const gzip: ZlibDeflateFunctions = { deflateRawSync: (bytes) => zlib!.deflateRawSync(bytes, { level: 1 }).slice(1), inflateRawSync: (bytes, options) => zlib!.inflateRawSync(bytes, options) };
      assert.equal(runtimeZlib({}), undefined, 'no process at all (workerd without nodejs_compat, browsers)');
      assert.equal(runtimeZlib({ process: {} }), undefined, 'a process without getBuiltinModule (Node before 20.16)');
      assert.equal(runtimeZlib(fake(undefined)), undefined, 'getBuiltinModule without node:zlib');
      assert.equal(runtimeZlib(fake({ deflateRawSync: identity.deflateRawSync })), undefined, 'a zlib without inflateRawSync');
      assert.equal(runtimeZlib(fake(identity)), undefined, 'a shim that does not compress');
      assert.equal(runtimeZlib(fake(gzip)), undefined, 'a zlib whose output fflate cannot read');
      const throwing = {
        process: {
          getBuiltinModule: () => {
            throw new Error('no such module');
          },
        },
      };
      assert.equal(runtimeZlib(throwing), undefined, 'a getBuiltinModule that throws');
      assert.ok(runtimeZlib(fake(zlib)), 'the real one, handed out the same way, is taken');
    });
  });
}
