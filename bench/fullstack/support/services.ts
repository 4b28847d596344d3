import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRedisServer, freePort } from '../../../test/support/redis-server.ts';
import { BRIDGE_COMMAND } from './bridge.ts';
import { launch, waitForPort, type Launched } from './launch.ts';

/** The repository root: commands of the bench run from there. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A service of the run (redis-server, the bridge), started under the launch supervisor. */
export interface Service {
  url: string;
  port: number;
  launched: Launched;
  stop(): Promise<void>;
}

/** A throwaway redis-server on a free port, no persistence. */
export async function startRedisService(cpus?: string): Promise<Service> {
  const bin = process.env.REDIS_SERVER_BIN || findRedisServer();
  if (!bin) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-redis-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const launched = launch({
    name: 'redis-server',
    command: [bin, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no', '--maxclients', '10000'],
    cpus,
  });
  await waitForPort(launched, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    launched,
    async stop() {
      await launched.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bridge in front of `redisUrl`, in its own process, with a random token. */
export async function startBridgeService(redisUrl: string, cpus?: string): Promise<Service & { token: string }> {
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const launched = launch({
    name: 'upstash bridge',
    command: [process.execPath, '--import', 'tsx', join(ROOT, BRIDGE_COMMAND[0]), ...BRIDGE_COMMAND.slice(1), '--port', String(port), '--redis', redisUrl, '--token', token],
    cwd: ROOT,
    cpus,
  });
  await waitForPort(launched, port);
  return { url: `http://127.0.0.1:${port}`, port, token, launched, stop: () => launched.stop() };
}
