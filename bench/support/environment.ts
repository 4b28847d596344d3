import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { createRequire } from 'node:module';

/** Where a run happened and with what, read from the machine and node_modules. */
export interface Environment {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  redisServer: string;
  /** Installed versions of the libraries measured, from their package.json. */
  libraries: Record<string, string>;
}

const LIBRARIES = ['iovalkey', 'ioredis', 'redis', 'bentocache', 'cache-manager', 'keyv', '@keyv/redis', 'unstorage', 'cbor-x', 'msgpackr', 'fflate', 'tsx'];

const require = createRequire(import.meta.url);

/** The version of `name` installed in node_modules, or "not installed". */
export function installedVersion(name: string): string {
  try {
    // Resolve the package's entry, then walk up to its package.json (some packages do not export it).
    let dir = require.resolve(name);
    for (let i = 0; i < 6; i++) {
      dir = dir.slice(0, dir.lastIndexOf('/'));
      try {
        const pkg = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name && pkg.version) return pkg.version;
      } catch {
        // No package.json at this level: keep walking up.
      }
    }
  } catch {
    // Not installed.
  }
  return 'not installed';
}

/** Describes this machine; `redisServer` comes from the server's INFO. */
export function describeEnvironment(redisServer: string): Environment {
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    redisServer,
    libraries: Object.fromEntries(LIBRARIES.map((name) => [name, installedVersion(name)])),
  };
}

/** The commit of the working tree, with `-dirty` when it has uncommitted changes: the engine a run's figures belong to. */
export function gitCommit(): string {
  const run = spawnSync('git', ['describe', '--always', '--dirty', '--abbrev=10'], { encoding: 'utf8', cwd: new URL('../..', import.meta.url) });
  return (run.stdout || 'unknown').trim();
}

/**
 * The commit a run that rewrites a bench page measures. Such a run refuses to start on a tree
 * with uncommitted changes, whose figures would belong to no commit, unless `--allow-dirty` is
 * in `args`: the page and its charts then say so (bench/report/run-stamp.ts). Quick and partial
 * runs write no page and need no check.
 */
export function commitForPage(command: string, args: readonly string[]): string {
  const commit = gitCommit();
  if (commit.endsWith('-dirty') && !args.includes('--allow-dirty')) {
    console.error(
      `${command}: the working tree has uncommitted changes (git status), and this run would rewrite its page as the figures of commit ${commit.replace(/-dirty$/, '')}. Commit or stash them first, or pass --allow-dirty: the page and its charts then say they come from no commit.`,
    );
    process.exit(2);
  }
  return commit;
}
