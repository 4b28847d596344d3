import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from '../support/environment.ts';
import type { FullstackConfig } from './config.ts';
import type { TargetId } from './plan.ts';
import type { RowResult } from './run-target.ts';
import { ROOT } from './support/services.ts';

/** One target's rows. */
export interface TargetResult {
  id: TargetId;
  label: string;
  notes: string[];
  /** wrk connections used on this target. */
  connections: number;
  /** How long the target took, servers' starts included, seconds. */
  durationS: number;
  /** 1-minute load average when the target started and ended. */
  loadAverage: { start: number; end: number };
  /** How busy the server's core was with other processes in the second before the target started, %. */
  idleCoreBusyPct?: number;
  work: RowResult[];
  pages: RowResult[];
}

/** Everything one `npm run bench:fullstack` measured: the JSON under bench/fullstack/results/ and the report's source. */
export interface FullstackResults {
  date: string;
  /** The commit measured (`git describe --always --dirty`): the engine these figures belong to. */
  commit: string;
  durationS: number;
  config: Omit<FullstackConfig, 'only'> & { only: string[] | null };
  environment: Environment & { runtimes: Record<string, string> };
  /** 1-minute load average when the run started and ended: how shared the machine was. */
  loadAverage: { start: number; end: number };
  targets: TargetResult[];
}

function versionOf(command: string[]): string {
  const run = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', cwd: ROOT });
  return (run.stdout || run.stderr || 'unknown').split('\n')[0]!.trim();
}

/** Packages of the servers (the peers' versions are in Environment.libraries). */
const SERVER_PACKAGES = ['hono', '@hono/node-server', 'miniflare', 'wrangler', '@upstash/redis'];

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** Reads a run's results; a file written by the harness before rounds (rows without windows) is an error saying so. */
export function readResults(path: string): FullstackResults {
  const results = JSON.parse(readFileSync(path, 'utf8')) as FullstackResults;
  if (!Array.isArray(results.targets) || !results.targets.every((t) => [...t.work, ...t.pages].every((row) => Array.isArray(row.windows)))) {
    throw new Error(`${path} was written by an older harness (rows without windows): run npm run bench:fullstack again`);
  }
  return results;
}

/** Versions of the runtimes and wrk, as their binaries report them, and of the server packages. */
export function runtimeVersions(): Record<string, string> {
  return {
    node: process.version,
    bun: versionOf([join(ROOT, 'node_modules/.bin/bun'), '--version']),
    deno: versionOf([join(ROOT, 'node_modules/.bin/deno'), '--version']),
    workerd: versionOf([join(ROOT, 'node_modules/.bin/workerd'), '--version']),
    wrk: versionOf(['wrk', '--version']),
    ...Object.fromEntries(SERVER_PACKAGES.map((name) => [name, packageVersion(name)])),
  };
}
