// The Node servers behind the `cachette` command, started from a user's own process.
import { startBridge, STORE_SCRIPTS, type Bridge, type BridgeOptions } from 'cachette/node/bridge';
import { isForwardingField, startProxy, TRUSTED_FORWARDING_FIELDS, TRUSTED_KEYED_FIELDS, type ProxyOptions, type RunningProxy } from 'cachette/node/proxy';
import { memoryStore } from 'cachette/adapters/memory';
import type { Equal, Expect } from './type-checks.js';

const proxyOptions: ProxyOptions = {
  origin: 'http://127.0.0.1:8000',
  store: memoryStore(),
  port: 0,
  ttl: '30s',
  setCookie: 'strip',
  originTimeout: '10s',
  originIdleTimeout: '10s',
  purge: { token: 'a-purge-token-of-16+' },
};
export const proxy: () => Promise<RunningProxy> = () => startProxy(proxyOptions);
export const purged = async (running: RunningProxy): Promise<number> => running.purge({ tag: 'products' });

const bridgeOptions: BridgeOptions = { redisUrl: 'redis://127.0.0.1:6379', token: 'dev-token-0123456789', port: 0 };
export const bridge: () => Promise<Bridge> = () => startBridge(bridgeOptions);
export const fields: readonly string[] = [...TRUSTED_FORWARDING_FIELDS, ...TRUSTED_KEYED_FIELDS].filter(isForwardingField);
export const scripts = STORE_SCRIPTS;
export type NodeServerChecks = [Expect<Equal<Awaited<ReturnType<typeof startBridge>>, Bridge>>, Expect<Equal<RunningProxy['url'], string>>];
