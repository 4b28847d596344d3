/**
 * cachette configurations measured beside the defaults: each serializer, and each compression
 * setting, all over the valkey store.
 */
import { Packr } from 'msgpackr';
import { zlibCompressor } from '../../runtimes/node/zlib-compressor.ts';
import { fflateDeflate } from '../../src/codec/compression.ts';
import type { Serializer } from '../../src/index.ts';
import { cachetteSpec } from './cachette.ts';
import type { ContenderSpec } from './types.ts';

// Plain MessagePack maps (no msgpackr records), so the bytes are what any MessagePack reader expects.
const packr = new Packr({ useRecords: false });
const msgpackSerializer: Serializer = { id: 5, name: 'msgpack', encode: (v) => packr.pack(v), decode: (b) => packr.unpack(b) };

/** The serializers, over valkey: auto (the default), CBOR, JSON and MessagePack. */
export const serializerContenders: readonly ContenderSpec[] = [
  cachetteSpec({ id: 'cachette-auto', label: 'auto (default: JSON for plain values, else CBOR)', store: 'valkey' }),
  cachetteSpec({ id: 'cachette-cbor', label: 'CBOR (cbor-x)', store: 'valkey', serializer: 'cbor' }),
  cachetteSpec({ id: 'cachette-json', label: 'JSON', store: 'valkey', serializer: 'json' }),
  cachetteSpec({ id: 'cachette-msgpack', label: 'MessagePack (msgpackr, custom serializer)', store: 'valkey', serializer: msgpackSerializer }),
];

/** The compression settings, over valkey, for the ~14 KiB rows payload. */
export const compressionContenders: readonly ContenderSpec[] = [
  cachetteSpec({ id: 'cachette-compress-default', label: 'default (the valkey store compresses from 32 KiB)', store: 'valkey' }),
  cachetteSpec({ id: 'cachette-compress-off', label: 'compression: false', store: 'valkey', compression: false }),
  cachetteSpec({ id: 'cachette-compress-on', label: 'compression: true (node:zlib deflate, level 1)', store: 'valkey', compression: true }),
  cachetteSpec({ id: 'cachette-compress-fflate', label: "fflate deflate level 1 (the edge's compressor)", store: 'valkey', compression: { compressor: fflateDeflate(1) } }),
  cachetteSpec({ id: 'cachette-compress-brotli', label: 'node:zlib brotli quality 4', store: 'valkey', compression: { compressor: zlibCompressor({ format: 'brotli', level: 4 }) } }),
];
