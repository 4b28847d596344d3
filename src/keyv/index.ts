/**
 * cachette/keyv: a Keyv storage adapter over any cachette store or cache, for Keyv itself,
 * cache-manager 7 (`createCache({ stores: [keyv] })`) and `@nestjs/cache-manager`.
 * Runtime-neutral: it loads nothing from keyv (whose types it implements) and no store client.
 *
 * ```ts
 * import Keyv from 'keyv';
 * import { keyvStore } from 'cachette/keyv';
 * const keyv = new Keyv({ store: keyvStore(memoryStore()) });
 * ```
 */
export { KeyvCachetteStore, keyvStore } from './keyv-store.ts';
export type { KeyvCachetteOptions } from './keyv-store.ts';
