import type { ContractTarget } from '../../src/store/testing/index.ts';
import { memoryStore } from '../../adapters/memory/index.ts';
import { clientOnTheSameServer } from '../contract/valkey-client.ts';

/** Environment variables the runtime suites read (passed in: workerd has no process.env of its own). */
export interface TargetEnv {
  REDIS_URL?: string;
  /** The local Redis Cluster as `host:port,…` (scripts/test starts it). */
  VALKEY_CLUSTER_NODES?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  CI?: string;
  CACHETTE_REQUIRE_ALL?: string;
}

/**
 * The stores one runtime can reach, as contract targets: memory everywhere, Valkey where the
 * runtime speaks TCP and REDIS_URL names a server (the cluster store where VALKEY_CLUSTER_NODES
 * names a cluster; both with the Valkey stores' own tests inside), SQLite where it has files, Upstash wherever
 * fetch works once UPSTASH_REDIS_REST_URL/_TOKEN name an endpoint (scripts/test starts the
 * local bridge and sets them). Adapters load lazily inside `open()`, so a
 * runtime never loads a client it cannot use. With CI=true (or CACHETTE_REQUIRE_ALL=1) a
 * missing server throws instead of shrinking the list quietly.
 */
export function storeTargets(env: TargetEnv, reach: { tcp: boolean; files?: boolean }): ContractTarget[] {
  const strict = env.CI === 'true' || env.CACHETTE_REQUIRE_ALL === '1';
  const targets: ContractTarget[] = [{ name: 'memory', open: () => memoryStore() }];
  if (reach.tcp) {
    const url = env.REDIS_URL;
    if (url)
      targets.push({
        name: 'valkey',
        open: async () => (await import('../../adapters/valkey/index.ts')).valkeyStore(url),
        additionalTests: clientOnTheSameServer as ContractTarget['additionalTests'],
      });
    else if (strict) throw new Error('REDIS_URL is not set and CI forbids skipping the Valkey suites');
    const nodes = env.VALKEY_CLUSTER_NODES;
    if (nodes)
      targets.push({
        name: 'valkey-cluster',
        open: async () => (await import('../../adapters/valkey/index.ts')).valkeyStore({ cluster: nodes.split(',') }),
        additionalTests: clientOnTheSameServer as ContractTarget['additionalTests'],
      });
    else if (strict) throw new Error('VALKEY_CLUSTER_NODES is not set (scripts/test starts the cluster) and CI forbids skipping the Valkey Cluster suites');
  }
  // The embedded SQLite store wherever there is a file system (its binding is the runtime's own).
  if (reach.files) targets.push({ name: 'sqlite', open: async () => (await import('../adapters/sqlite-temp.ts')).tempSqliteStore() });
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = env;
  if (url && token) targets.push({ name: 'upstash', open: async () => (await import('../../adapters/upstash/index.ts')).upstashStore({ url, token }) });
  else if (strict) throw new Error('UPSTASH_REDIS_REST_URL/_TOKEN are not set (scripts/test starts the bridge) and CI forbids skipping the Upstash suites');
  return targets;
}
