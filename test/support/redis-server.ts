// Starts a throwaway redis-server on a free loopback port (Debian 12 has no Valkey; Redis 7
// speaks the same protocol). Used by scripts/test.mjs and by the benchmarks.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Finds a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The redis-server binary, installing Debian's package when allowed; undefined when absent. */
export function findRedisServer({ install = false, log = console.error }: { install?: boolean; log?: (m: string) => void } = {}): string | undefined {
  const which = () => spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  let bin = which();
  if (!bin && install && process.getuid?.() === 0) {
    log('redis-server missing: installing it with apt-get (Debian package redis-server)…');
    spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server'], { stdio: 'inherit' });
    bin = which();
  }
  return bin || undefined;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`; rejects after `ms`. */
export function waitForPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > until) reject(new Error(`redis-server did not listen on ${port} within ${ms} ms`));
        else setTimeout(attempt, 25);
      });
    };
    attempt();
  });
}

/** A redis-server started by {@link startRedis}. */
export interface RedisServer {
  url: string;
  port: number;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts redis-server on `port` (a free one by default) with no persistence; pinned to core
 * `cpu` with taskset when given (benchmarks keep the server and the client apart).
 */
export async function startRedis({ bin, port, cpu }: { bin?: string; port?: number; cpu?: number } = {}): Promise<RedisServer> {
  bin ??= findRedisServer();
  if (!bin) throw new Error('redis-server not found');
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cachette-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'];
  const child = cpu === undefined ? spawn(bin, args, { stdio: 'ignore' }) : spawn('taskset', ['-c', String(cpu), bin, ...args], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  await waitForPort(port, 5000);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    async stop() {
      if (!exited) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
