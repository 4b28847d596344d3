import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from './redis-server.ts';

/** The bridge running in its own process, so its CPU is not counted as the client's. */
export interface BridgeProcess {
  url: string;
  token: string;
  stop(): Promise<void>;
}

/** Starts `npm run bridge` (`cachette bridge` from the sources, through tsx) in front of `redisUrl`, with more flags when given. */
export async function spawnBridge(redisUrl: string, args: readonly string[] = []): Promise<BridgeProcess> {
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const child = spawn(process.execPath, ['--import', 'tsx', 'products/cli/main.ts', 'bridge', '--port', String(port), '--redis', redisUrl, '--token', token, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await ready(child);
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// The bridge prints its URL once both Redis and the listener are up.
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bridge did not start within 15 s')), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('cachette bridge: http')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the bridge exited with code ${code}`)));
  });
}
