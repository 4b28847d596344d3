/**
 * `cachette` as Node, Bun and Deno resolve it (the "node", "bun" and "deno" export
 * conditions): the runtime-neutral entry, with node:zlib's native DEFLATE as the default
 * compressor. Edge runtimes resolve `cachette` to src/index.ts, which keeps fflate.
 */
import './install.ts';

export * from '../../src/index.ts';
