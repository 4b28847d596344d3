/**
 * The redis-server the tests talk to. Under CI (CI=true) or CACHETTE_REQUIRE_ALL=1 a missing
 * server fails the suite; elsewhere the suite is skipped and scripts/test.ts says so loudly.
 */
export const redisUrl: string | undefined = process.env.REDIS_URL || undefined;

/** True when tests may not be skipped for lack of a service. */
export const mustRunAll = process.env.CI === 'true' || process.env.CACHETTE_REQUIRE_ALL === '1';

/** Throws when a required service is missing under CI; returns whether it is present. */
export function requireRedis(): boolean {
  if (redisUrl) return true;
  if (mustRunAll) throw new Error('REDIS_URL is not set and CI forbids skipping the Valkey suites');
  return false;
}

/**
 * The local Redis Cluster the tests talk to, as `host:port,…` (scripts/test/main.ts or the vitest
 * global setup builds it: 3 masters and 3 replicas). Under CI a missing cluster fails the suite.
 */
export const clusterNodes: string | undefined = process.env.VALKEY_CLUSTER_NODES || undefined;

/** Throws when the cluster is missing under CI; returns whether it is present. */
export function requireCluster(): boolean {
  if (clusterNodes) return true;
  if (mustRunAll) throw new Error('VALKEY_CLUSTER_NODES is not set and CI forbids skipping the Valkey Cluster suites');
  return false;
}
