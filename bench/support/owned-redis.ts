/**
 * A throwaway redis-server that cannot outlive the benchmark that started it (see
 * test/support/watchdog.ts: a crash, or even SIGKILL, still stops it).
 */
import { startRedis, type RedisServer } from '../../test/support/redis-server.ts';
import { watchChildren } from '../../test/support/watchdog.ts';

/** Starts redis-server on a free loopback port; undefined when it is not installed. */
export async function startOwnedRedis(): Promise<RedisServer | undefined> {
  let redis: RedisServer;
  try {
    redis = await startRedis();
  } catch {
    return undefined;
  }
  const watch = watchChildren([redis.pid!]);
  return {
    ...redis,
    async stop() {
      await redis.stop();
      watch.release();
    },
  };
}
