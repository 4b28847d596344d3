/** `cachette/h3` on Node, Bun and Deno: the same middleware, with the native default compressor. */
import './install.ts';

export * from '../../src/bindings/h3/index.ts';
