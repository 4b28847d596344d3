/**
 * Issue 20, item 4 (first-hour defect 4): the peer ranges rejected most existing apps
 * (`hono@^4.13`, `@hono/node-server@^2.1`: ERESOLVE on hono 4.6 and node-server 1.x, which work).
 * The ranges now say what works, and this proves it: one `npm install` of the packed tarball
 * with the lowest version of every peer its ranges allow (from the npm registry: these are not
 * the checkout's versions), then a small app per peer against a real redis-server
 * (lowest/app.mjs). Express is a declared peer too (issue 33, item 9: nothing checked the
 * "Express 5 or 4" claim), with its lowest 5 beside its lowest 4; and every peer is declared once
 * (package.json once listed @opentelemetry/api twice, which JSON.parse hides).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

/** The lowest version each declared peer range allows: what the app installs. */
const LOWEST: Record<string, string> = {
  hono: '4.0.0',
  '@hono/node-server': '1.0.2',
  iovalkey: '0.1.0',
  '@upstash/redis': '1.28.1',
  '@opentelemetry/api': '1.3.0',
  express: '4.0.0',
  fastify: '4.1.0',
};
/**
 * better-sqlite3 builds a native addon, which needs more than the npm registry: its range (12) is
 * the one the repository tests. next is a framework to build an app with: its lowest version
 * runs in next-lowest.pack.ts; drizzle-orm's lowest and newest run in drizzle.pack.ts; keyv,
 * unstorage and undici (the ecosystem entries) run in ecosystem.pack.ts and nitro-example.pack.ts;
 * koa, h3 and elysia (Elysia on Bun) in bindings-lowest.pack.ts. pg (the PostgreSQL store) needs
 * a PostgreSQL server: its store contract runs on the repository's pg (test/contract/postgres.test.ts);
 * the lowest of its range (8.11) is not run yet.
 */
const UNTESTED_HERE = ['better-sqlite3', 'next', 'drizzle-orm', 'keyv', 'unstorage', 'undici', 'koa', 'h3', 'elysia', 'pg'];
/** The lowest Express 5 and Fastify 5, under aliases so that they install beside the lowest of each range (4). */
const ALIASED = { express5: 'npm:express@5.0.0', fastify5: 'npm:fastify@5.0.0' };

/** The smallest x.y.z a range names (the ranges here are unions of carets, or >= … <). */
function lowestOf(range: string): string {
  const versions = [...range.matchAll(/(\d+)\.(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])] as const);
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  return versions[0]!.join('.');
}

/** The keys a JSON text (valid: JSON.parse read it) names twice in one object, as `path.key`. */
function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const space = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const string = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    return JSON.parse(text.slice(start, ++i)) as string;
  };
  const value = (path: string): void => {
    space();
    const open = text[i];
    if (open === '{' || open === '[') {
      const seen = new Set<string>();
      i++;
      for (space(); text[i] !== (open === '{' ? '}' : ']'); space()) {
        if (text[i] === ',') {
          i++;
          space();
        }
        if (open === '[') {
          value(path);
          continue;
        }
        const key = string();
        if (seen.has(key)) found.push(`${path}${key}`);
        seen.add(key);
        space();
        i++; // the colon
        value(`${path}${key}.`);
      }
      i++;
    } else if (open === '"') string();
    else while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
  };
  value('');
  return found;
}

let work: string;
let app: string;
let redis: RedisServer;

describe('the packed package with the lowest version of every peer', () => {
  beforeAll(async () => {
    redis = await startRedis();
    work = mkdtempSync(join(tmpdir(), 'cachette-lowest-'));
    app = join(work, 'app');
    mkdirSync(app);
    const dependencies = { cachette: `file:${inject('packed').path}`, ...LOWEST, ...ALIASED };
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'lowest-peers-app', private: true, type: 'module', dependencies }));
    cpSync(join(import.meta.dirname, 'lowest', 'app.mjs'), join(app, 'app.mjs'));
    // From the registry, in one install: npm would refuse it (ERESOLVE) if a range left a lowest version out.
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  }, 720_000);
  afterAll(async () => {
    await redis?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('names each key of package.json once (JSON.parse keeps the last of two and says nothing)', () => {
    assert.deepEqual(duplicateKeys(readFileSync(join(root, 'package.json'), 'utf8')), []);
  });

  it('installs exactly the lower bound of each declared range', () => {
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), [...Object.keys(LOWEST), ...UNTESTED_HERE].sort(), 'every peer is tested here or said why not');
    for (const [peer, version] of Object.entries(LOWEST)) {
      assert.equal(lowestOf(manifest.peerDependencies[peer]!), version, `${peer}: the range ${manifest.peerDependencies[peer]} starts elsewhere than the version tested`);
      const installed = JSON.parse(readFileSync(join(app, 'node_modules', peer, 'package.json'), 'utf8')) as { version: string };
      assert.equal(installed.version.replace(/^v/, ''), version);
    }
  });

  it('runs Hono (with @hono/node-server), Express 4 and 5, Fastify 4 and 5, Valkey, Upstash and OpenTelemetry on them', async () => {
    const { stdout } = await run(process.execPath, ['app.mjs'], { cwd: app, env: { ...process.env, REDIS_URL: redis.url }, timeout: 60_000 });
    assert.deepEqual(stdout.trim().split('\n'), [
      'ok hono@4.0.0',
      'ok @hono/node-server@1.0.2',
      'ok express@4.0.0',
      'ok express5@5.0.0',
      'ok fastify@4.1.0',
      'ok fastify5@5.0.0',
      'ok iovalkey@0.1.0',
      'ok @upstash/redis@1.28.1',
      'ok @opentelemetry/api@1.3.0',
      'lowest ok',
    ]);
  }, 90_000);
});
