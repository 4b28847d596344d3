/**
 * cachette/unstorage: an unstorage driver over any cachette store or cache, for `createStorage()`
 * and for Nitro's and Nuxt's `useStorage()` (a storage mount, in a plugin). Runtime-neutral.
 *
 * ```ts
 * import { createStorage } from 'unstorage';
 * import cachetteDriver from 'cachette/unstorage';
 * const storage = createStorage({ driver: cachetteDriver({ store: memoryStore() }) });
 * ```
 *
 * `watch` is there where the store has a coherence bus (valkey, bun-redis): writes and removals
 * of any process reach it (src/unstorage/watch.ts).
 */
import type { Driver } from 'unstorage';
import { importPeer } from '../util/optional-peer.ts';
import { createCachetteDriver, type CachetteDriverOptions } from './driver.ts';

export type { CachetteDriver, CachetteDriverOptions } from './driver.ts';

// unstorage's own `defineDriver`, so the driver is one as unstorage defines them; a missing
// unstorage is a MissingPeerError naming the install command when this entry loads.
const { defineDriver } = await importPeer('cachette/unstorage', 'unstorage', () => import('unstorage'));

/**
 * The cachette driver: `cachetteDriver({ store })`, where `store` is a cachette store or a cache
 * from `createCache()` (see {@link CachetteDriverOptions}: `base`, `ttl` in seconds, `tags`).
 */
export const cachetteDriver: (options: CachetteDriverOptions) => Driver<CachetteDriverOptions> = defineDriver(createCachetteDriver);

export default cachetteDriver;
