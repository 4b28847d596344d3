/**
 * cachette/undici: a `CacheStore` for undici's `interceptors.cache()`, so outbound `fetch`
 * responses are cached in any cachette store (Valkey, Upstash, SQLite, memory) under its key
 * space and tags. Node only (undici writes bodies through a Node Writable); undici 7 is a peer,
 * loaded by your code, never by this entry.
 */
export { CachetteUndiciStore, undiciOriginTag, undiciStore } from './cache-store.ts';
export type { UndiciStoreOptions } from './cache-store.ts';
