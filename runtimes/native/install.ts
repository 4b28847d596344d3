/**
 * Makes node:zlib's native DEFLATE the default compressor. Node, Bun and Deno all have
 * node:zlib; every entry point that runs there imports this module once, for its effect.
 * The format and its id stay those of the portable fflate, so the edge reads what a server wrote.
 */
import { installPlatformDeflate } from '../../src/codec/compression.ts';
import { zlibCompressor } from '../node/zlib-compressor.ts';

installPlatformDeflate((level) => zlibCompressor({ level }));
