/**
 * Issue 11, item 3 on the Node server binding: the app behind `serve` gets @hono/node-server's
 * bindings, so Hono's earlyHints middleware sends its 103 on a miss; a hit, answered without
 * the app, carries no 103 and none of its fields. Over a raw socket, since fetch hides 1xx.
 */
import assert from 'node:assert/strict';
import { earlyHints } from '@hono/node-server/early-hints';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { serve } from '../../runtimes/node/index.ts';
import { rawGet } from '../proxy/support.ts';

describe('cachette/node serve: interim responses', () => {
  it("relays the app's 103 Early Hints on a miss, never on a hit", async () => {
    const app = new Hono();
    let calls = 0;
    app.use('/page', earlyHints({ link: '</style.css>; rel=preload; as=style' }));
    app.get('/page', (c) => {
      calls++;
      return c.html(`<p>${getConnInfo(c).remote.address}</p>`, 200, { 'cache-control': 'max-age=60' });
    });
    const server = await serve(app.fetch, { port: 0, cache: { store: memoryStore(), log: () => {} } });
    try {
      const port = Number(new URL(server.url).port);
      const miss = await rawGet(port, '/page');
      assert.match(miss.text, /^HTTP\/1\.1 103 Early Hints\r\nLink: <\/style\.css>; rel=preload; as=style\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
      assert.match(miss.text, /<p>127\.0\.0\.1<\/p>/, 'the app sees the client through the bindings');
      await server.cache.idle();
      const hit = await rawGet(port, '/page');
      assert.match(hit.text, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(hit.text, /\r\ncache-status: cachette; hit/i);
      assert.doesNotMatch(hit.text, /\r\nlink:/i);
      assert.equal(calls, 1);
    } finally {
      await server.close();
    }
  });
});
