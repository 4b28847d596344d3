/**
 * examples/next as a user gets it: the packed tarball installed into a fresh app made of the
 * example's files, built with `next build`, served by `next start` instances. Nothing comes from
 * the network: the tarball's dependencies are linked from this checkout, and Next and React are
 * hard-linked copies of the checkout's (Turbopack compiles nothing outside the app's root, so a
 * symlink into the checkout would not resolve), with telemetry off.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { installPacked, packPackage } from '../support/packed-package.ts';
import { freePort, startRedis, type RedisServer } from '../support/redis-server.ts';
import { watchChildren, type ChildWatch } from '../support/watchdog.ts';

const root = join(import.meta.dirname, '../..');
const example = join(root, 'examples', 'next');
const repoModules = join(root, 'node_modules');

/** The variables that would pick a store (the test runner's servers), or change how Node runs: never inherited. */
const SCRUBBED = /^(REDIS_|VALKEY_|UPSTASH_|CACHETTE_|NODE_OPTIONS$)/;

/** The environment of Next's processes: this one's without what picks a store, telemetry off, plus `extra`. */
export function nextEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NEXT_TELEMETRY_DISABLED: '1' };
  for (const [name, value] of Object.entries(process.env)) if (!SCRUBBED.test(name)) env[name] = value;
  return { ...env, ...extra };
}

/** Packs the package, and makes a fresh app of examples/next with the tarball installed; returns the app's folder. */
export function prepareExample(work: string): string {
  const packed = packPackage(root, work);
  const app = join(work, 'app');
  installPacked(packed.path, app, root, ['cbor-x', 'fflate', 'iovalkey']);
  copyAppFiles(example, app);
  for (const name of dependencyClosure(['next', 'react', 'react-dom'])) {
    const target = join(app, 'node_modules', name);
    mkdirSync(dirname(target), { recursive: true });
    execFileSync('cp', ['-al', join(repoModules, name), target]);
  }
  return app;
}

/** Copies an app's sources (not its package.json, dependencies or build) into `app`. */
export function copyAppFiles(from: string, app: string): void {
  for (const name of readdirSync(from)) {
    if (name === 'package.json' || name === 'node_modules' || name === '.next') continue;
    cpSync(join(from, name), join(app, name), { recursive: true });
  }
}

/** `names` and every package they depend on (optional ones when installed), as hoisted in the checkout. */
function dependencyClosure(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name) || !existsSync(join(repoModules, name, 'package.json'))) continue;
    seen.add(name);
    const manifest = JSON.parse(readFileSync(join(repoModules, name, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    queue.push(...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }));
  }
  return [...seen];
}

/** What a Next command printed, for the messages of failed assertions. */
export class Output {
  readonly lines: string[] = [];

  collect(child: ChildProcess, label: string): void {
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk: Buffer) =>
        this.lines.push(
          ...chunk
            .toString()
            .split('\n')
            .filter(Boolean)
            .map((line) => `${label} ${line}`),
        ),
      );
  }

  toString(): string {
    return this.lines.slice(-80).join('\n');
  }
}

const nextBin = (app: string) => join(app, 'node_modules', 'next', 'dist', 'bin', 'next');

/** `next build` in `app`, with `env`; rejects with its output when it fails or runs past `timeoutMs`. */
export function buildApp(app: string, env: NodeJS.ProcessEnv, output: Output, timeoutMs: number): Promise<void> {
  const child = spawn(process.execPath, [nextBin(app), 'build'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
  const watch = watchChildren([child.pid!]);
  output.collect(child, '[build]');
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`next build failed (${signal ?? code}):\n${output}`))));
  }).finally(() => watch.release());
}

/** One `next start` instance. */
export interface NextServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `next start` on a free loopback port and adds it to `servers` at once (so that the
 * caller stops it even when it never answers); resolves once it answers HTTP. A watchdog kills
 * it if this process dies first.
 */
export async function startServer(app: string, env: NodeJS.ProcessEnv, output: Output, label: string, servers: NextServer[]): Promise<NextServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [nextBin(app), 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const watch = watchChildren([child.pid!]);
  output.collect(child, label);
  const url = `http://127.0.0.1:${port}`;
  const server: NextServer = {
    url,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      watch.release();
    },
  };
  servers.push(server);
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${label} exited (${child.exitCode}) before answering:\n${output}`);
    // A route that reads no cache: readiness must not fill what the tests look at.
    const answered = await fetch(`${url}/api/revalidate`, { signal: AbortSignal.timeout(5000) }).then(
      () => true,
      () => false,
    );
    if (answered) return server;
    if (Date.now() > until) throw new Error(`${label} did not answer within 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A built app served as two instances of one deployment: `next build` with CACHETTE_STORE=memory
 * (as a CI build without the production store would), then a redis-server of its own and two
 * `next start` over it. Made before `start()` so that whatever started is stopped by `stop()`,
 * even when starting failed halfway.
 */
export class TwoInstances {
  /** The instances started so far ([a], [b] once both answer). */
  readonly servers: NextServer[] = [];
  readonly output = new Output();
  #redis: RedisServer | undefined;
  #watch: ChildWatch | undefined;

  constructor(readonly app: string) {}

  async start(redisBin?: string): Promise<void> {
    await buildApp(this.app, nextEnv({ CACHETTE_STORE: 'memory' }), this.output, 150_000);
    this.#redis = await startRedis({ bin: redisBin });
    this.#watch = watchChildren([this.#redis.pid!]);
    const env = nextEnv({ REDIS_URL: this.#redis.url });
    await Promise.all([startServer(this.app, env, this.output, '[a]', this.servers), startServer(this.app, env, this.output, '[b]', this.servers)]);
  }

  /** Both instances, once started. */
  get pair(): [NextServer, NextServer] {
    const [a, b] = this.servers;
    if (!a || !b) throw new Error(`the instances did not start:\n${this.output}`);
    return [a, b];
  }

  /** Stops the redis-server alone: the instances keep running without their store. */
  async stopRedis(): Promise<void> {
    await this.#redis?.stop();
    this.#redis = undefined;
    this.#watch?.release();
  }

  /** Stops the instances, then the redis-server. */
  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
    await this.stopRedis();
  }
}
