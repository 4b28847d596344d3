/** `cachette/http` on Node, Bun and Deno: the same response cache, with the native default compressor. */
import './install.ts';

export * from '../../src/http/index.ts';
