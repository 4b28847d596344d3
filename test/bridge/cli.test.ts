/**
 * Issue 13, item 7: `cachette bridge` — one prefix per message, the port hint, and what it
 * prints for a client to use. (scripts/test runs it as a child process for the Bun, Deno and
 * workerd suites, through test/support/bridge-process.ts.)
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'vitest';
import type { Started } from '../../products/shared/command.ts';
import { runCli } from '../../products/cli/run.ts';
import { freePort } from '../support/redis-server.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { terminal } from '../proxy/support.ts';

describe('cachette bridge', () => {
  it('names an unreachable Redis and its cause once, under one prefix', async () => {
    const io = terminal();
    assert.equal(await runCli(['bridge', '--redis', `redis://127.0.0.1:${await freePort()}`, '--port', '0'], io), 1);
    const last = io.stderr.at(-1)!;
    assert.match(last, /^cachette bridge: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    assert.ok(
      io.stderr.every((line) => !/bridge: .*bridge:/.test(line)),
      io.stderr.join('\n'),
    );
  });

  it('refuses bad numbers as usage errors', async () => {
    for (const args of [
      ['--max-commands', '0'],
      ['--max-body-bytes', 'lots'],
      ['--port', '65536'],
    ]) {
      const io = terminal();
      assert.equal(await runCli(['bridge', ...args], io), 2, args.join(' '));
      assert.match(io.stderr[0]!, /^cachette bridge: --(max-commands|max-body-bytes|port) must be/);
    }
  });

  describe.runIf(requireRedis())('with Redis', () => {
    it('gives a one-line hint when the port is taken', async () => {
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = (blocker.address() as { port: number }).port;
      try {
        const io = terminal({ UPSTASH_BRIDGE_PORT: String(port), REDIS_URL: redisUrl! });
        assert.equal(await runCli(['bridge'], io), 1);
        assert.deepEqual(io.stderr, [`cachette bridge: port ${port} on 127.0.0.1 is already in use: choose another with --port or the UPSTASH_BRIDGE_PORT variable`]);
      } finally {
        blocker.close();
      }
    });

    it('prints what a client needs and the policy it runs with', async () => {
      const io = terminal({ REDIS_URL: redisUrl!, UPSTASH_BRIDGE_TOKEN: 'from-the-environment' });
      const bridge = (await runCli(['bridge', '--port', '0', '--allow-admin'], io)) as Started;
      try {
        const [banner, url, token] = io.stdout;
        assert.match(banner!, /^cachette bridge: http:\/\/127\.0\.0\.1:\d+ → redis:\/\/.* \(data commands and the stores' scripts, plus admin commands\)$/);
        const base = /UPSTASH_REDIS_REST_URL=(\S+)/.exec(url!)![1]!;
        assert.equal(token, '  UPSTASH_REDIS_REST_TOKEN=from-the-environment');
        const res = await fetch(base, { method: 'POST', headers: { authorization: 'Bearer from-the-environment' }, body: '["CONFIG","GET","maxmemory"]' });
        assert.equal(res.status, 200, 'admin commands run with --allow-admin');
      } finally {
        await bridge.stop();
      }
    });
  });
});
