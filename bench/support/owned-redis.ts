/**
 * A throwaway redis-server that cannot outlive the benchmark that started it: a detached
 * watchdog stops it when this process is gone (a crash, or even SIGKILL), and exit and signal
 * handlers stop it at once on the ordinary paths.
 */
import { spawn } from 'node:child_process';
import { startRedis, type RedisServer } from '../../test/support/redis-server.ts';

/** Starts redis-server on a free loopback port; undefined when it is not installed. */
export async function startOwnedRedis(): Promise<RedisServer | undefined> {
  let redis: RedisServer;
  try {
    redis = await startRedis();
  } catch {
    return undefined;
  }
  const pid = String(redis.pid);
  // `tail --pid` returns once this process has exited, however it exited.
  const watchdog = spawn('sh', ['-c', 'tail --pid="$1" -f /dev/null; kill "$2" 2>/dev/null', 'watchdog', String(process.pid), pid], { stdio: 'ignore', detached: true });
  watchdog.unref();
  // 'exit' handlers cannot wait, but they can still send a signal.
  const onExit = () => {
    try {
      process.kill(Number(pid), 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const onSignal = () => {
    onExit();
    process.exit(130);
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    ...redis,
    async stop() {
      process.removeListener('exit', onExit);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await redis.stop();
      watchdog.kill();
    },
  };
}
