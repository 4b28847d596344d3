/**
 * The Upstash store: Redis over HTTP (the Upstash REST protocol) through `@upstash/redis`.
 * No `node:` import, so it runs on Workers, Deno, Bun and Node alike.
 */
export { UpstashStore, upstashStore, type UpstashConnectionOptions, type UpstashStoreOptions } from './store.ts';
export { BINARY_MARKER, decodeValue, encodeValue } from './value-encoding.ts';
