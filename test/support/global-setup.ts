import { startRedisCluster } from './redis-cluster.ts';
import { findRedisServer, startRedis } from './redis-server.ts';

/**
 * Gives every test file a real redis-server through REDIS_URL and REDIS_SERVER_BIN, and a local
 * Redis Cluster through VALKEY_CLUSTER_NODES: the ones scripts/test.ts started, or ones started
 * here when vitest runs on its own. Workers inherit the environment, so the variables are the
 * handshake.
 */
export default async function setup(): Promise<(() => Promise<void>) | void> {
  const bin = process.env.REDIS_SERVER_BIN || findRedisServer();
  if (bin) process.env.REDIS_SERVER_BIN = bin;
  if (!bin) return;
  const [server, cluster] = await Promise.all([process.env.REDIS_URL ? undefined : startRedis({ bin }), process.env.VALKEY_CLUSTER_NODES ? undefined : startRedisCluster({ bin })]);
  if (server) process.env.REDIS_URL = server.url;
  if (cluster) process.env.VALKEY_CLUSTER_NODES = cluster.seedList;
  return async () => {
    await Promise.all([server?.stop(), cluster?.stop()]);
  };
}
