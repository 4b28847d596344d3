/**
 * A throwaway PostgreSQL cluster for the benches (race, embedded) and the PostgreSQL tests:
 * initdb into a temporary directory, run as the `postgres` user on a free loopback port, fsync
 * off, removed when stopped. Installs Debian's `postgresql` package with apt-get when no server
 * binaries are found (as root only).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/support/redis-server.ts';

/** A running throwaway cluster. */
export interface Postgres {
  /** postgres:// URL of the `postgres` database as the `postgres` user. */
  url: string;
  /** The server's version, from `postgres --version`: `PostgreSQL 15.18`. */
  version: string;
  stop(): Promise<void>;
}

/** Where Debian keeps the server binaries (initdb, pg_ctl, postgres), when they are installed. */
export function installedServerBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  return version && existsSync(join(root, version, 'bin', 'initdb')) ? join(root, version, 'bin') : undefined;
}

/**
 * The server binaries, installed with apt-get (Debian's `postgresql`) when missing and `install`
 * allows it (root only); undefined when they are still missing. `npm test` calls it before the
 * suites that start a cluster, so that those never skip quietly.
 */
export function findPostgresBin({ install }: { install: boolean }): string | undefined {
  let bin = installedServerBin();
  if (!bin && install && process.getuid?.() === 0) {
    console.error('PostgreSQL missing, installing it with apt-get (Debian package postgresql)…');
    spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql'], { stdio: 'inherit' });
    bin = installedServerBin();
  }
  return bin;
}

/** The server binaries, installing them if needed. */
function serverBin(): string {
  const bin = findPostgresBin({ install: true });
  if (!bin) throw new Error('a throwaway PostgreSQL needs its server binaries (apt-get install postgresql)');
  return bin;
}

/** Runs `args` as the postgres user (the server refuses to run as root). */
function asPostgres(command: string, args: string[]): ReturnType<typeof spawnSync> {
  const line = [command, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const runAs = process.getuid?.() === 0 ? ['su', 'postgres', '-s', '/bin/sh', '-c', line] : ['sh', '-c', line];
  return spawnSync(runAs[0]!, runAs.slice(1), { encoding: 'utf8' });
}

/** Starts the cluster (fsync off: a throwaway, and commits must not wait for a disk we share). */
export async function startPostgres(): Promise<Postgres> {
  const bin = serverBin();
  const dir = mkdtempSync(join(tmpdir(), 'cachette-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) spawnSync('chown', ['postgres:postgres', dir]);
  const init = asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const start = asPostgres(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-w',
    '-l',
    join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=50`,
    'start',
  ]);
  if (start.status !== 0) throw new Error(`pg_ctl start failed: ${start.stderr}${start.stdout}`);
  // A watchdog stops the cluster if this process dies without stopping it.
  const watchdog = spawn('sh', ['-c', `tail --pid=${process.pid} -f /dev/null; su postgres -s /bin/sh -c "${join(bin, 'pg_ctl')} -D ${data} -m immediate stop"; rm -rf ${dir}`], {
    stdio: 'ignore',
    detached: true,
  });
  watchdog.unref();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    version: `PostgreSQL ${/\d+(\.\d+)*/.exec(spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout)?.[0] ?? 'unknown'}`,
    async stop() {
      asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      watchdog.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
