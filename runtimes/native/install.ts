/**
 * What Node, Bun and Deno add to the runtime-neutral core; every entry point that runs there
 * imports this module once, for its effect:
 * - node:zlib's native DEFLATE as the default compressor (all three have node:zlib). The
 *   format and its id stay those of the portable fflate, so the edge reads what a server wrote.
 * - on Bun, the probe that shows the Content-Type a response body implies (Bun keeps it off the
 *   headers), so that the HTTP cache stores and sends it (bun-implied-type.ts).
 * - on Node and Bun, cbor-x's native string extractor (cbor-extract, when installed: ~1.6× faster
 *   decoding of string-heavy values). The codec imports the cbor-x entry that leaves it out
 *   (src/codec/serializers.ts); loading cbor-x's main entry installs it on the same decoder. Not
 *   on Deno, where that entry reads the environment (a permission every program would need)
 *   and the addon needs --allow-ffi. Loaded in the background: the first calls may decode
 *   without it, identically.
 */
import { installPlatformDeflate } from '../../src/codec/compression.ts';
import { installImpliedTypeProbe } from '../../src/http/exchange/implied-type.ts';
import { zlibCompressor } from '../node/zlib-compressor.ts';
import { bunImpliedTypeProbe } from './bun-implied-type.ts';

installPlatformDeflate((level) => zlibCompressor({ level }));
const impliedType = bunImpliedTypeProbe();
if (impliedType) installImpliedTypeProbe(impliedType);
if (!('Deno' in globalThis)) import('cbor-x').catch(() => {});
