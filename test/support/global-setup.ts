import { findRedisServer, startRedis } from './redis-server.ts';

/**
 * Gives every test file a real redis-server through REDIS_URL and REDIS_SERVER_BIN:
 * the one scripts/test.ts started, or one started here on a free port when vitest runs
 * on its own. Workers inherit the environment, so the variables are the handshake.
 */
export default async function setup(): Promise<(() => Promise<void>) | void> {
  const bin = process.env.REDIS_SERVER_BIN || findRedisServer();
  if (bin) process.env.REDIS_SERVER_BIN = bin;
  if (process.env.REDIS_URL || !bin) return;
  const server = await startRedis({ bin });
  process.env.REDIS_URL = server.url;
  return () => server.stop();
}
