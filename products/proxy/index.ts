/**
 * cachette/node/proxy: the caching reverse proxy that `cachette proxy` runs, for starting it
 * from your own Node process (a test, a dev server) instead of the command line. Node only.
 *
 * ```ts
 * import { startProxy } from 'cachette/node/proxy';
 * import { memoryStore } from 'cachette/adapters/memory';
 * const proxy = await startProxy({ origin: 'http://127.0.0.1:8000', store: memoryStore(), port: 8082 });
 * ```
 */
export { startProxy, type RunningProxy } from './proxy.ts';
export type { ProxyOptions } from './options.ts';
export type { PurgeOptions } from './purge-endpoint.ts';
export type { HeldStats } from './held-bytes.ts';
export { isForwardingField, TRUSTED_FORWARDING_FIELDS, TRUSTED_KEYED_FIELDS } from './forwarding-headers.ts';
