import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { SqliteStore } from '../../adapters/sqlite/index.ts';
import { openStoreFromEnv } from '../../runtimes/shared/env-store.ts';
import { serverStoreFactories } from '../../runtimes/shared/server-stores.ts';
import { removeDir, tempDir } from '../adapters/sqlite-temp.ts';
import { bytes, text, type SuiteApi } from '../support/suite-api.ts';
import type { ServeFn } from './serve-suite.ts';

/**
 * CACHETTE_STORE=sqlite:PATH through a runtime's own entry, over real HTTP on 127.0.0.1: the
 * store opens on the runtime's binding, says so once, and two servers on one file share
 * their responses. Runner-neutral: vitest (Node), bun test and Deno.test.
 */
export function sqliteServeSuite(t: SuiteApi, runtime: string, serve: ServeFn, binding: SqliteStore['binding']): void {
  t.describe(`${runtime} helper on CACHETTE_STORE=sqlite`, () => {
    let dir: string;
    t.beforeAll(() => {
      dir = tempDir(`serve-${runtime}`);
    });
    t.afterAll(() => removeDir(dir));

    t.it(`opens the file on ${binding}`, async () => {
      const path = join(dir, 'direct.db');
      const lines: string[] = [];
      const store = (await openStoreFromEnv({ CACHETTE_STORE: `sqlite:${path}`, REDIS_URL: 'redis://127.0.0.1:1' }, serverStoreFactories, { log: (l) => lines.push(l) })) as SqliteStore;
      try {
        assert.equal(store.name, 'sqlite');
        assert.equal(store.binding, binding);
        assert.equal(store.path, path);
        assert.deepEqual(lines, [`[cachette] store: sqlite (CACHETTE_STORE=sqlite:${path}; shared by the processes of this machine)`]);
        await store.set('k', bytes('v'));
        assert.equal(text(await store.get('k')), 'v');
      } finally {
        await store.close();
      }
    });

    t.it('two servers on one file share one cache', async () => {
      let calls = 0;
      const handler = async (request: Request) => {
        calls++;
        return new Response(`${new URL(request.url).pathname} #${calls}`, { headers: { 'cache-control': 'public, max-age=60' } });
      };
      // Keyed by path: the two servers listen on different ports, so their URLs differ.
      const options = { port: 0, cache: { env: { CACHETTE_STORE: `sqlite:${join(dir, 'shared', 'cache.db')}` }, log: false as const, key: (r: Request) => new URL(r.url).pathname } };
      const first = await serve(handler, options);
      const second = await serve(handler, options);
      try {
        assert.equal(await (await fetch(`${first.url}/page`)).text(), '/page #1');
        await first.cache!.idle();
        const shared = await fetch(`${second.url}/page`);
        assert.equal(await shared.text(), '/page #1');
        assert.match(shared.headers.get('cache-status') ?? '', /; hit/);
        assert.equal(calls, 1);
      } finally {
        await first.close();
        await second.close();
      }
    });

    t.it('an unknown CACHETTE_STORE stops the start, naming the variable', async () => {
      await assert.rejects(async () => serve(async () => new Response('x'), { port: 0, cache: { env: { CACHETTE_STORE: 'sqlite:' }, log: false } }), /CACHETTE_STORE must be "sqlite:PATH"/);
    });
  });
}
