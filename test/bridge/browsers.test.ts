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
import { spawnBridge, type BridgeProcess } from '../support/bridge-process.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

/** A `cachette bridge` that should not start: its exit code and what it said (null when it started after all, and was stopped). */
function failedStart(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'products/cli/main.ts', 'bridge', '--port', '0', '--redis', redisUrl!, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, UPSTASH_BRIDGE_TOKEN: '', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('UPSTASH_REDIS_REST_URL=')) child.kill('SIGTERM');
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

/** POSTs PING to `bridge` with `headers` (Host included, as given) and resolves the status and body. */
function ping(bridge: BridgeProcess, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(bridge.url, { method, headers: { authorization: `Bearer ${bridge.token}`, ...headers } }, (res) => {
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
    const flag = await failedStart(['--token', 'dev-token'], {});
    assert.equal(flag.code, 2, flag.stderr);
    assert.match(flag.stderr, /^cachette bridge: --token must be at least 16 characters of visible ASCII, such as the output of `openssl rand -hex 16`, got 9 characters/);
    const variable = await failedStart([], { UPSTASH_BRIDGE_TOKEN: 'short' });
    assert.equal(variable.code, 2, variable.stderr);
    assert.match(variable.stderr, /^cachette bridge: UPSTASH_BRIDGE_TOKEN must be at least 16 characters/);
  });

  it('answers the Hosts that name it: IP addresses, localhost, the allowed names', async () => {
    const named = await spawnBridge(redisUrl!, ['--allowed-hosts', 'bridge.test,.dev.test']);
    try {
      const port = new URL(named.url).port;
      for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'LocalHost.', `app.localhost:${port}`, 'bridge.test:9000', 'api.dev.test', 'dev.test']) {
        const answer = await ping(named, { host });
        assert.equal(answer.status, 200, host);
        assert.equal(answer.body, '{"result":"PONG"}', host);
      }
      for (const host of ['bridge.test.evil.example', 'xdev.test']) assert.equal((await ping(named, { host })).status, 403, host);
    } finally {
      await named.stop();
    }
  });

  describe('a running bridge', () => {
    let bridge: BridgeProcess;
    let port: string;
    beforeAll(async () => {
      bridge = await spawnBridge(redisUrl!);
      port = new URL(bridge.url).port;
    });
    afterAll(() => bridge?.stop());

    it('refuses any other Host, as a rebinding page sends (the reproduction)', async () => {
      for (const host of [`evil.example:${port}`, 'localhost.evil.example', '127.0.0.1.evil.example', 'a b']) {
        const answer = await ping(bridge, { host });
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
        const answer = await ping(bridge, { host, ...headers });
        assert.equal(answer.status, 403, JSON.stringify(headers));
        assert.match(answer.body, /a web browser sent it/, JSON.stringify(headers));
        assert.equal(answer.headers['access-control-allow-origin'], undefined);
      }
      const preflight = await ping(bridge, { host, origin: 'http://evil.example', 'access-control-request-method': 'POST' }, 'OPTIONS');
      assert.equal(preflight.status, 403, 'a CORS preflight fails, so the browser sends nothing after it');
      const node = await ping(bridge, { host, 'sec-fetch-mode': 'cors' });
      assert.equal(node.status, 200, "Node's fetch sends Sec-Fetch-Mode: cors alone");
      const res = await fetch(bridge.url, { method: 'POST', headers: { authorization: `Bearer ${bridge.token}` }, body: '["PING"]' });
      assert.equal(res.status, 200, 'fetch from Node is a client, not a browser');
    });
  });
});
