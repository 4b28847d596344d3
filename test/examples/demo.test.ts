/**
 * The main job (`npm start`, examples/node-hono/server.ts) against a store that is down
 * (issue 10, item 14): every request is still answered (the factory runs), and the log says
 * "reads down" and "writes down" once each, naming the store's address and the cause, instead of
 * one line per failed call. Run as `npm start` runs it: tsx on the example, a real HTTP server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

describe('the demo server (npm start)', () => {
  const output: string[] = [];
  // Port 1 on loopback refuses connections: the store is known to be down at once.
  const child = spawn(tsx, ['examples/node-hono/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', REDIS_URL: 'redis://127.0.0.1:1', VALKEY_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line.length > 0),
      );
      const address = output.join('\n').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (address) resolve(address[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the demo exited (${String(code)}) before listening:\n${output.join('\n')}`)));
  });
  afterAll(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });

  it('answers every request while its store is down, and logs each transition once', async () => {
    const base = await listening;
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`${base}/report/${i % 4}`);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { id: string };
      assert.equal(body.id, String(i % 4));
    }
    const stats = (await (await fetch(`${base}/stats`)).json()) as { misses: number };
    assert.ok(stats.misses >= 40, `every report was a miss on a dead store (stats: ${JSON.stringify(stats)})`);
    const down = output.filter((line) => /down/.test(line));
    assert.equal(down.filter((line) => /reads down/.test(line)).length, 1, output.join('\n'));
    assert.equal(down.filter((line) => /writes down/.test(line)).length, 1, output.join('\n'));
    assert.match(down[0]!, /127\.0\.0\.1:1/);
    assert.match(down[0]!, /ECONNREFUSED/);
    // Besides the store line, the listening line and the two transitions, nothing per request.
    assert.ok(output.length <= 6, `the demo logged per request:\n${output.join('\n')}`);
  }, 60_000);
});
