/**
 * Keeps throwaway servers (redis-server, a cluster's nodes) from outliving the process that
 * started them: a detached shell waits for this process to exit, however it exits (a crash, even
 * SIGKILL), then kills the servers; exit and signal handlers kill them at once on the ordinary
 * paths. Used by the test runner and by the benchmarks.
 */
import { spawn } from 'node:child_process';

/** A watch started by {@link watchChildren}; `release()` ends it once the servers were stopped normally. */
export interface ChildWatch {
  release(): void;
}

/** Kills `pids` (SIGTERM) when this process exits or is interrupted, whichever way it goes. */
export function watchChildren(pids: readonly number[]): ChildWatch {
  const list = pids.map(String).join(' ');
  // `tail --pid` returns once this process has exited; then the children get a SIGTERM.
  const watchdog = spawn('sh', ['-c', 'tail --pid="$1" -f /dev/null; kill $2 2>/dev/null', 'watchdog', String(process.pid), list], { stdio: 'ignore', detached: true });
  watchdog.unref();
  // 'exit' handlers cannot wait, but they can still send a signal.
  const onExit = () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
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
    release() {
      process.removeListener('exit', onExit);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      watchdog.kill();
    },
  };
}
