/**
 * Every TypeScript snippet of README.md and docs/ is type-checked and run as written
 * (test/docs/markdown-snippets.ts says how a page tells the test what a snippet needs). All of
 * them are compiled in one tsc program against the package's entry names, as the repository's
 * tsconfig `paths` map them to the sources; each is then run on its runtime from a folder of its
 * own, scripts to their exit, servers until their HTTP cache answers a hit, then stopped.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { clusterNodes, redisUrl, requireCluster, requireRedis } from '../support/redis-env.ts';
import { freePort } from '../support/redis-server.ts';
import { postgresInstalled, startPostgres, type Postgres } from '../adapters/postgres-server.ts';
import { entrySources } from './entry-sources.ts';
import { allSnippets, SNIPPET_CLUSTER, SNIPPET_POSTGRES, SNIPPET_REDIS, type Snippet } from './markdown-snippets.ts';

const root = join(import.meta.dirname, '../..');
const BIN = join(root, 'node_modules/.bin');
const snippets = allSnippets(root);
let work: string;
let diagnostics: Map<string, string[]>;
/** The PostgreSQL cluster of the snippets that name one, started once where it is installed. */
let postgres: Promise<Postgres> | undefined;

let postgresUrl: string | undefined;

/** The snippet's source with the documented addresses replaced by the test's services. */
function withTestServices(snippet: Snippet): string {
  let source = snippet.source;
  if (snippet.needs.redis) source = source.replaceAll(SNIPPET_REDIS, redisUrl!);
  if (snippet.needs.postgres) source = source.replaceAll(SNIPPET_POSTGRES, postgresUrl!);
  if (snippet.needs.cluster) {
    const nodes = clusterNodes!.split(',');
    source = source.replace(new RegExp(SNIPPET_CLUSTER.source, 'g'), (_, n: string) => `redis://${nodes[Number(n) % nodes.length]}`);
  }
  return source;
}

/** Type-checks every snippet in one program; resolves each snippet's diagnostics. */
function typecheck(): Map<string, string[]> {
  const dir = join(work, 'typecheck');
  mkdirSync(dir);
  for (const snippet of snippets) writeFileSync(join(dir, `${snippet.slug}.ts`), snippet.source);
  const run = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(work, 'tsconfig.json'), '--pretty', 'false'], { cwd: work, encoding: 'utf8' });
  const found = new Map<string, string[]>();
  for (const line of `${run.stdout}${run.stderr}`.split('\n').filter(Boolean)) {
    const slug = /typecheck\/([\w-]+)\.ts\(/.exec(line)?.[1] ?? '(other)';
    found.set(slug, [...(found.get(slug) ?? []), line]);
  }
  return found;
}

/** The command that runs `file` on the snippet's runtime, and the folder it runs in. */
function command(snippet: Snippet, file: string, port: number): { argv: string[]; cwd: string } {
  switch (snippet.runtime) {
    case 'node':
      return { argv: [join(BIN, 'tsx'), '--tsconfig', join(work, 'tsconfig.json'), file], cwd: work };
    case 'bun':
      return { argv: [join(BIN, 'bun'), 'run', file], cwd: work };
    case 'deno':
      // From the repository, whose package.json lets Deno resolve the sources' own dependencies.
      return { argv: [join(BIN, 'deno'), 'run', ...snippet.denoFlags!, '--no-check', '--import-map', join(work, 'import_map.json'), file], cwd: root };
    case 'workerd':
      return {
        argv: [
          process.execPath,
          join(root, 'node_modules/wrangler/bin/wrangler.js'),
          'dev',
          '--port',
          String(port),
          '--ip',
          '127.0.0.1',
          '--inspector-port',
          '0',
          '--show-interactive-dev-session=false',
        ],
        cwd: join(file, '../..'),
      };
  }
}

/** Writes the snippet where its runtime expects it; returns the entry file. */
function writeSnippet(snippet: Snippet): string {
  const dir = join(work, 'run', snippet.slug);
  if (snippet.runtime === 'workerd') {
    const main = /^main\s*=\s*"([^"]+)"/m.exec(snippet.wranglerToml!)?.[1];
    assert.ok(main, `${snippet.id}: its wrangler.toml names no main`);
    mkdirSync(join(dir, main, '..'), { recursive: true });
    writeFileSync(join(dir, 'wrangler.toml'), snippet.wranglerToml!);
    // wrangler's bundler resolves `cachette/*` through the project's tsconfig paths.
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: join(root, 'tsconfig.json'), include: ['src'] }));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, main), withTestServices(snippet));
    return join(dir, main);
  }
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'main.ts');
  writeFileSync(file, withTestServices(snippet));
  return file;
}

/** A running child with its output so far. */
interface Child {
  process: ChildProcess;
  /** Its stdout and stderr, interleaved as they came: for messages. */
  output: () => string;
  /** Its stdout alone: what `prints=` is compared with. */
  stdout: () => string;
  exited: Promise<number | null>;
}

function start(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Child {
  let output = '';
  let stdout = '';
  // Its own process group, so that stopping it stops what it started (wrangler's workerd).
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  // 'close', not 'exit': the output is complete only once the child's pipes have closed.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { process: child, output: () => output, stdout: () => stdout, exited };
}

/**
 * Checks that the snippet wrote its `prints=` on stdout. A part of it, not all: what else a
 * snippet prints depends on the machine (the store picked from its environment, a TTL left, a
 * test runner's report), and a snippet without `prints=` is checked by exiting or serving alone.
 */
function assertPrinted(snippet: Snippet, child: Child, port: number): void {
  // Under workerd the stdout is wrangler dev's own (markdown-snippets.ts refuses `prints` there).
  if (snippet.runtime === 'workerd' || snippet.prints === undefined) return;
  const expected = snippet.prints.replaceAll('$PORT', String(port));
  assert.ok(child.stdout().includes(expected), `${snippet.id} should print ${JSON.stringify(expected)} on stdout:\n${child.output()}`);
}

async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.process.pid!, signal);
    } catch {
      // already gone
    }
  };
  group('SIGTERM');
  const timer = setTimeout(() => group('SIGKILL'), 5000);
  await child.exited;
  clearTimeout(timer);
}

/** Requests `url` until the server answers, then until the cache answers a hit; resolves the hit. */
async function untilHit(url: string, child: Child): Promise<Response> {
  const deadline = Date.now() + 90_000;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`the server exited (${child.process.exitCode}) before answering ${url}`);
    try {
      const response = await fetch(url);
      const body = await response.text();
      last = `${response.status} cache-status: ${response.headers.get('cache-status')}: ${body.slice(0, 200)}`;
      if (response.status === 200 && /\bhit\b/.test(response.headers.get('cache-status') ?? '')) return response;
    } catch (error) {
      last = String((error as Error).cause ?? error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no cache hit from ${url} in 90 s; last answer: ${last}`);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cachette-snippets-'));
  // Bare imports (hono, express, @opentelemetry/…) resolve from the snippets' folders upwards.
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  // Snippets are ES modules, as in an app whose package.json says so.
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'snippets', private: true, type: 'module' }));
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions: { noEmit: true }, include: ['typecheck/*.ts'] }));
  // Deno maps the entry names as tsconfig does (`cachette/x` → runtimes/x/index.ts, …).
  const imports = Object.fromEntries(entrySources(root));
  writeFileSync(join(work, 'import_map.json'), JSON.stringify({ imports }));
  diagnostics = typecheck();
}, 180_000);

afterAll(async () => {
  await (await postgres?.catch(() => undefined))?.stop();
  const notRun = snippets.filter((s) => s.notRun);
  console.info(
    `[snippets] ${snippets.length} snippets in README.md and docs/: ${snippets.length - notRun.length} run, ${notRun.length} not run${notRun.map((s) => `\n  ${s.id}: ${s.notRun}`).join('')}`,
  );
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('README and docs snippets', () => {
  it('are found, on every page that has code', () => {
    assert.ok(snippets.length >= 20, `${snippets.length} snippets`);
    assert.ok(
      snippets.some((s) => s.page === 'README.md'),
      'README has snippets',
    );
    assert.deepEqual(diagnostics.get('(other)') ?? [], [], 'tsc reported errors outside the snippets');
  });

  describe.concurrent.each(snippets)('$id', (snippet) => {
    it('type-checks against the package entry points', () => {
      assert.deepEqual(diagnostics.get(snippet.slug) ?? [], [], `${snippet.id}:\n${snippet.code}`);
    });

    // A snippet marked `// not run: <where>` is run where it says (listed once above), not here.
    if (snippet.notRun) return;
    const services = (!snippet.needs.redis || requireRedis()) && (!snippet.needs.cluster || requireCluster()) && (!snippet.needs.postgres || postgresInstalled);
    it.runIf(services)(
      snippet.serves ? `serves ${snippet.serves} on ${snippet.runtime}, and the cache answers a hit` : `runs on ${snippet.runtime} and exits`,
      async () => {
        if (snippet.needs.postgres) postgresUrl = (await (postgres ??= startPostgres())).url;
        const file = writeSnippet(snippet);
        const port = await freePort();
        const { argv, cwd } = command(snippet, file, port);
        const env = { ...process.env, PORT: String(port), WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1' };
        const child = start(argv, cwd, env);
        try {
          if (snippet.serves) {
            await untilHit(`http://127.0.0.1:${port}${snippet.serves}`, child).catch((error: Error) => {
              throw new Error(`${snippet.id} (${relative(work, file)}): ${error.message}\n${child.output()}`);
            });
            assertPrinted(snippet, child, port);
          } else {
            // Generous: snippets run five at a time, and one that starts PGlite takes 40 s of a loaded machine.
            const timer = setTimeout(() => void stop(child), 140_000);
            const status = await child.exited;
            clearTimeout(timer);
            assert.equal(status, 0, `${snippet.id} exited with ${status}:\n${child.output()}`);
            assertPrinted(snippet, child, port);
          }
        } finally {
          await stop(child);
        }
      },
      160_000,
    );
  });
});
