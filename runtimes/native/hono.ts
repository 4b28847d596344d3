/** `cachette/hono` on Node, Bun and Deno: the same middleware, with the native default compressor. */
import './install.ts';

export * from '../../src/bindings/hono/index.ts';
