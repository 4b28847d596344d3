/** `cachette/elysia` on Node, Bun and Deno: the same plugin, with the native default compressor. */
import './install.ts';

export * from '../../src/bindings/elysia/index.ts';
