/**
 * Issue 20, item 4: the first-hour defects that only show in a real install, reproduced as a
 * user meets them: the packed tarball (packed once for test/package, pack-setup.ts) installed
 * into fresh apps that have only what the snippet needs, then the snippet run with Node.
 *
 * - Express without Hono's server: README's Express snippet imports storeFromEnv from
 *   cachette/node, which imported @hono/node-server at load time (ERR_MODULE_NOT_FOUND).
 * - A missing optional peer: each entry that needs one says which package and the command
 *   that installs it, instead of Node's bare "Cannot find package".
 * - The Quickstart against a closed port: said once on stderr, instead of nothing.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { installPackedAsync } from '../support/packed-package.ts';
import { runInApp } from './run-in-app.ts';
import { sharedApp } from './shared-apps.ts';

const root = join(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, 'first-hour');
let work: string;
/** express, and no optional peer at all. */
let bare: string;
/** With iovalkey, the Quickstart's store: a directory of its own in the shared `full` app (shared-apps.ts). */
let withValkey: string;

/** This process's environment without the variables that pick a store: a fresh app's (the test runner sets REDIS_URL). */
const appEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VALKEY_URL|REDIS_URL|UPSTASH_REDIS_REST_URL|UPSTASH_REDIS_REST_TOKEN|CACHETTE_STORE)$/.test(name)));

/** Runs a fixture with Node in `app`. */
const node = (app: string, file: string, args: string[] = []) => runInApp(app, process.execPath, [join(app, file), ...args], appEnv);

describe('the first hour with the packed package', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-first-hour-'));
    bare = join(work, 'bare');
    await installPackedAsync(inject('packed').path, bare, root, ['cbor-x', 'fflate', 'express']);
    withValkey = (await sharedApp('full', 'first-hour')).dir;
    for (const app of [bare, withValkey]) cpSync(fixtures, app, { recursive: true });
  }, 360_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("runs README's Express snippet in an app with express and without @hono/node-server", async () => {
    const result = await node(bare, 'express-readme.mjs');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'cachette/node: fwd=uri-miss, hit, 1 call\ncachette/express: fwd=uri-miss, hit, 1 call\n');
  }, 60_000);

  it('names the missing optional peer and the command that installs it, for every entry that needs one', async () => {
    const result = await node(bare, 'missing-peers.mjs');
    assert.equal(result.code, 0, result.stderr);
    const needs = (who: string, peer: string, install = peer) => `MissingPeerError: ${who} needs the ${peer} package, which is not installed: npm install ${install}`;
    assert.deepEqual(result.stdout.trim().split('\n'), [
      'valkeyStore: loads',
      `valkeyStore client: ${needs('valkeyStore().client', 'iovalkey')}`,
      `valkeyStore cluster: ${needs('valkeyStore({ cluster })', 'iovalkey')}`,
      `startBridge: ${needs('cachette/node/bridge', 'iovalkey')}`,
      `cachette/adapters/upstash: ${needs('cachette/adapters/upstash', '@upstash/redis')}`,
      `cachette/workers/upstash: ${needs('cachette/adapters/upstash', '@upstash/redis')}`,
      `cachette/otel: ${needs('cachette/otel', '@opentelemetry/api')}`,
      `serve: ${needs('serve() from cachette/node', '@hono/node-server')}`,
      `requestListener: ${needs('requestListener() from cachette/node', '@hono/node-server')}`,
      `sqliteStore: ${needs('sqliteStore()', 'better-sqlite3', 'better-sqlite3@12')}`,
      `cachette/drizzle: ${needs('cachette/drizzle', 'drizzle-orm')}`,
      'storeFromEnv REDIS_URL: loads',
      `storeFromEnv CACHETTE_STORE=postgres: ${needs('postgresStore()', 'pg')}`,
      // Hono is needed for its types only: the middleware itself loads and is built without it.
      'cachette/hono: loads',
    ]);
  }, 60_000);

  it("says once on stderr that the Quickstart's store is unreachable, and still prints the value", async () => {
    const result = await node(withValkey, 'quickstart.mjs');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "{ id: '42', name: 'Ada' }\n");
    assert.equal(result.stderr, 'cachette: store valkey at 127.0.0.1:1 is unreachable (connect ECONNREFUSED 127.0.0.1:1); serving from the source\n');
  }, 60_000);
});
