import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.ts';
import { findRedisServer, startRedis } from './redis-server.ts';

/**
 * Global setup of the vitest projects whose files need a service (vitest.config.ts names each
 * project after what its files need: `redis`, `cluster`, `redis+cluster`, `redis+runtime`, …).
 * Vitest runs a project's global setup only when a file of that project is selected, so a run of
 * unit files starts nothing, and a run of one Valkey file starts one redis-server, not the cluster.
 *
 * Gives the files a real redis-server through REDIS_URL and REDIS_SERVER_BIN, and a local Redis
 * Cluster through VALKEY_CLUSTER_NODES: the ones scripts/test/main.ts started, or ones started
 * here. Workers inherit the environment, so the variables are the handshake; a second project
 * that needs the same service finds the variable set and reuses it.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const needs = new Set(project.name.split('+'));
  const bin = process.env.REDIS_SERVER_BIN || findRedisServer();
  if (!bin) return;
  process.env.REDIS_SERVER_BIN = bin;
  const wantServer = needs.has('redis') && !process.env.REDIS_URL;
  const wantCluster = needs.has('cluster') && !process.env.VALKEY_CLUSTER_NODES;
  const [server, cluster] = await Promise.all([wantServer ? startRedis({ bin }) : undefined, wantCluster ? startRedisCluster({ bin }) : undefined]);
  if (server) process.env.REDIS_URL = server.url;
  if (cluster) process.env.VALKEY_CLUSTER_NODES = cluster.seedList;
  return async () => {
    await Promise.all([server?.stop(), cluster?.stop()]);
  };
}
