/**
 * Issue 13, item 7: the `cachette` command and its `proxy` subcommand — help, clear errors for
 * a scheme-less origin and a taken port, PORT, and a real run. Run in process through
 * `runCli` (with its own output and environment), and once as `npm run proxy` would run it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'vitest';
import type { Started } from '../../products/shared/command.ts';
import { HELP, runCli } from '../../products/cli/run.ts';
import { freePort } from '../support/redis-server.ts';
import { cacheable, closesAfterEach, recordingOrigin, spawnProxyCommand, terminal } from './support.ts';

const closing = closesAfterEach();

function started(result: number | Started): Started {
  assert.equal(typeof result, 'object', `expected a running server, got exit code ${String(result)}`);
  return result as Started;
}

describe('cachette command', () => {
  it('prints its help, the version, and refuses an unknown command', async () => {
    const io = terminal();
    assert.equal(await runCli(['--help'], io), 0);
    assert.equal(io.stdout[0], HELP);
    assert.match(HELP, /proxy +a caching reverse proxy/);
    assert.match(HELP, /bridge +a local Upstash-compatible REST endpoint/);
    assert.equal(await runCli(['--version'], io), 0);
    assert.match(io.stdout[1]!, /^\d+\.\d+\.\d+/);
    assert.equal(await runCli(['serve'], io), 2);
    assert.match(io.stderr[0]!, /^cachette: unknown command "serve"/);
    assert.equal(await runCli([], io), 2, 'no command is a usage error');
  });

  it("prints each subcommand's help", async () => {
    for (const name of ['proxy', 'bridge']) {
      const io = terminal();
      assert.equal(await runCli([name, '--help'], io), 0);
      assert.match(io.stdout[0]!, new RegExp(`^Usage: cachette ${name}`));
    }
  });
});

describe('cachette proxy', () => {
  it('says what is wrong with a scheme-less origin, a bad flag, a bad PORT or a short purge token', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--origin', '127.0.0.1:8000'], {}, /^cachette proxy: --origin: the origin must be an absolute http:\/\/ or https:\/\/ URL such as http:\/\/127\.0\.0\.1:8000, got "127\.0\.0\.1:8000"/],
      [['--origin', 'localhost:8000'], {}, /got "localhost:8000"/],
      [['--origin', 'ftp://x'], {}, /absolute http:\/\/ or https:\/\//],
      [[], {}, /--origin is required/],
      [['--origin', 'http://x', '--colour'], {}, /Unknown option '--colour'/],
      [['--origin', 'http://x'], { PORT: 'eighty' }, /PORT must be a port number/],
      [['--origin', 'http://x', '--port', '70000'], {}, /--port must be a port number/],
      [['--origin', 'http://x', '--store', 'disk'], {}, /--store must be memory or valkey/],
      [['--origin', 'http://x', '--ttl', 'soon'], {}, /--ttl must be a duration/],
      [['--origin', 'http://x', '--write-timeout', 'soon'], {}, /--write-timeout must be a duration/],
      [['--origin', 'http://x', '--port', '0', '--max-body-bytes', '2000', '--max-held-bytes', '1000'], {}, /"maxHeldBytes" must be an integer of at least "maxBodyBytes" \(2000\)/],
      [['--origin', 'http://x', '--set-cookie', 'keep'], {}, /--set-cookie must be bypass, strip, store, got "keep"/],
      [['--origin', 'http://x', '--port', '0', '--purge-token', 'short'], {}, /^cachette proxy: --purge-token must be at least 16 characters of visible ASCII, .*got 5 characters/],
      [
        ['--origin', 'http://x', '--port', '0'],
        { CACHETTE_PURGE_TOKEN: 'sixteen chars ok' },
        /^cachette proxy: CACHETTE_PURGE_TOKEN must be at least 16 characters of visible ASCII, .*got one with spaces/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const io = terminal(env);
      assert.equal(await runCli(['proxy', ...args], io), 2, args.join(' '));
      assert.match(io.stderr.join('\n'), message, args.join(' '));
      assert.match(io.stderr.join('\n'), /Run `cachette proxy --help` for the options\./);
    }
  });

  it('gives a one-line hint when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const io = terminal({ PORT: String(port) });
      assert.equal(await runCli(['proxy', '--origin', 'http://127.0.0.1:1'], io), 1);
      assert.deepEqual(io.stderr, [`cachette proxy: port ${port} on 127.0.0.1 is already in use: choose another with --port or the PORT variable`]);
    } finally {
      blocker.close();
    }
  });

  it('runs the proxy on PORT with the flags given, and stops', async () => {
    const origin = closing(await recordingOrigin((_req, res) => cacheable(res, 'from origin')));
    const port = await freePort();
    const io = terminal({ PORT: String(port), CACHETTE_PURGE_TOKEN: 'a-purge-token-of-16+' });
    const proxy = started(await runCli(['proxy', '--origin', origin.url, '--x-cache', '--ttl', '30s'], io));
    closing({ close: () => proxy.stop() });
    assert.equal(io.stdout[0], `cachette proxy: http://127.0.0.1:${port} → ${origin.url} (store: memory)`);
    assert.match(io.stdout[1]!, /purge: POST http:\/\/127\.0\.0\.1:\d+\/\.cachette\/purge or PURGE <path>/);
    const first = await fetch(`http://127.0.0.1:${port}/x`);
    assert.equal(await first.text(), 'from origin');
    assert.equal(first.headers.get('x-cache'), 'MISS');
    const second = await fetch(`http://127.0.0.1:${port}/x`);
    assert.equal(second.headers.get('x-cache'), 'HIT');
  });

  it('applies --set-cookie: bypass by default, strip, store', async () => {
    const origin = closing(await recordingOrigin((_req, res) => cacheable(res, 'with cookie', { 'set-cookie': 'theme=dark' })));
    // What a client served from the cache gets as Set-Cookie; bypass stores nothing, so each client gets the origin's own.
    const served = { bypass: 'theme=dark', strip: null, store: 'theme=dark' } as const;
    for (const policy of [undefined, 'strip', 'store'] as const) {
      const io = terminal();
      const proxy = started(await runCli(['proxy', '--origin', origin.url, '--port', '0', ...(policy === undefined ? [] : ['--set-cookie', policy])], io));
      closing({ close: () => proxy.stop() });
      const url = /cachette proxy: (http:\/\/\S+)/.exec(io.stdout[0]!)![1]!;
      const path = `/${policy ?? 'bypass'}`;
      const first = await fetch(url + path);
      assert.equal(first.headers.get('set-cookie'), 'theme=dark', 'the client that caused the fetch gets its cookie');
      await first.text();
      const second = await fetch(url + path);
      await second.text();
      assert.match(second.headers.get('cache-status')!, policy === undefined ? /fwd=/ : /^cachette; hit/, `${path}: ${second.headers.get('cache-status')}`);
      assert.equal(second.headers.get('set-cookie'), served[policy ?? 'bypass'], path);
    }
    assert.equal(origin.received.filter((r) => r.url === '/bypass').length, 2, 'bypass stores nothing');
    assert.equal(origin.received.filter((r) => r.url === '/strip').length, 1);
    assert.equal(origin.received.filter((r) => r.url === '/store').length, 1);
  });

  it('runs as `npm run proxy` does, and exits 0 on SIGTERM', async () => {
    const origin = closing(await recordingOrigin((_req, res) => cacheable(res, 'spawned')));
    const proxy = await spawnProxyCommand(process.execPath, ['--import', 'tsx', 'products/cli/main.ts', 'proxy', '--origin', origin.url, '--port', '0']);
    try {
      assert.equal(await (await fetch(`${proxy.url}/s`)).text(), 'spawned');
    } finally {
      assert.equal(await proxy.stop(), 0);
    }
  });
});
