/**
 * Issue 23, item 12: the bridge answered any Host and any Origin, so a web page could reach it
 * (DNS rebinding makes a page's own name point at 127.0.0.1), and it accepted README's own
 * `--token dev-token`. Against a real `cachette bridge` process in front of the suite's
 * redis-server, over raw HTTP (fetch cannot set Host, and sends no Origin).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

const TOKEN = 'bridge-token-0123456789';

/** A `cachette bridge` process: its URL once it listens, or how it exited when it does not start. */
interface BridgeRun {
  url: string | undefined;
  code: number | null;
  stderr: string;
  stop(): Promise<void>;
}

function runBridge(args: readonly string[], env: Record<string, string> = {}): Promise<BridgeRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'runtimes/node/cli/main.ts', 'bridge', '--port', '0', '--redis', redisUrl!, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, UPSTASH_BRIDGE_TOKEN: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /UPSTASH_REDIS_REST_URL=(\S+)/.exec(stdout)?.[1];
      if (url) resolve({ url, code: null, stderr, stop });
    });
    void exited.then((code) => resolve({ url: undefined, code, stderr, stop }));
  });
}

/** POSTs PING with `headers` (Host included, as given) and resolves the status and body. */
function ping(url: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '["PING"]' : undefined);
  });
}

describe.runIf(requireRedis())('cachette bridge: tokens and browsers', () => {
  it('refuses a short token at startup, naming the flag or the variable (the reproduction: --token dev-token)', async () => {
    const flag = await runBridge(['--token', 'dev-token']);
    assert.equal(flag.code, 2, flag.stderr);
    assert.match(flag.stderr, /^cachette bridge: --token must be at least 16 characters of visible ASCII, such as the output of `openssl rand -hex 16`, got 9 characters/);
    const variable = await runBridge([], { UPSTASH_BRIDGE_TOKEN: 'short' });
    assert.equal(variable.code, 2, variable.stderr);
    assert.match(variable.stderr, /^cachette bridge: UPSTASH_BRIDGE_TOKEN must be at least 16 characters/);
  });

  it('answers the Hosts that name it: IP addresses, localhost, the host it listens on, the allowed names', async () => {
    const named = await runBridge(['--token', TOKEN, '--host', 'localhost', '--allowed-hosts', 'bridge.test,.dev.test']);
    try {
      assert.ok(named.url, named.stderr);
      const port = new URL(named.url).port;
      for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'LocalHost.', `app.localhost:${port}`, 'bridge.test:9000', 'api.dev.test', 'dev.test']) {
        const answer = await ping(named.url, { host });
        assert.equal(answer.status, 200, host);
        assert.equal(answer.body, '{"result":"PONG"}', host);
      }
      for (const host of ['bridge.test.evil.example', 'xdev.test']) assert.equal((await ping(named.url, { host })).status, 403, host);
    } finally {
      await named.stop();
    }
  });

  describe('a running bridge', () => {
    let bridge: BridgeRun;
    let port: string;
    beforeAll(async () => {
      bridge = await runBridge(['--token', TOKEN]);
      assert.ok(bridge.url, bridge.stderr);
      port = new URL(bridge.url).port;
    });
    afterAll(() => bridge?.stop());

    it('refuses any other Host, as a rebinding page sends (the reproduction)', async () => {
      for (const host of [`evil.example:${port}`, 'localhost.evil.example', '127.0.0.1.evil.example', 'a b']) {
        const answer = await ping(bridge.url!, { host });
        assert.equal(answer.status, 403, host);
        assert.match(answer.body, /does not name this bridge \(DNS rebinding\?\); accept a name with --allowed-hosts/, host);
      }
    });

    it('refuses what a browser sends, with the right token and Host (the reproduction: a page on another origin)', async () => {
      const host = `127.0.0.1:${port}`;
      const browserRequests: Array<Record<string, string>> = [
        { origin: 'http://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' },
        { 'sec-fetch-site': 'same-origin' },
      ];
      for (const headers of browserRequests) {
        const answer = await ping(bridge.url!, { host, ...headers });
        assert.equal(answer.status, 403, JSON.stringify(headers));
        assert.match(answer.body, /a web browser sent it/, JSON.stringify(headers));
        assert.equal(answer.headers['access-control-allow-origin'], undefined);
      }
      const preflight = await ping(bridge.url!, { host, origin: 'http://evil.example', 'access-control-request-method': 'POST' }, 'OPTIONS');
      assert.equal(preflight.status, 403, 'a CORS preflight fails, so the browser sends nothing after it');
      const node = await ping(bridge.url!, { host, 'sec-fetch-mode': 'cors' });
      assert.equal(node.status, 200, "Node's fetch sends Sec-Fetch-Mode: cors alone");
      const res = await fetch(bridge.url!, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '["PING"]' });
      assert.equal(res.status, 200, 'fetch from Node is a client, not a browser');
    });
  });
});
