/**
 * Issue 27, item 13: no error or line that quotes a URL shows its secrets. One helper
 * (src/util/redact-url.ts) hides the userinfo's password and `password=`/`token=`/`secret=`
 * values, and for text that is not a URL everything between `//` and `@`; every place that quotes
 * a store, cluster node, Upstash, bridge or origin URL goes through it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { chooseStore } from '../../runtimes/shared/env-store.ts';
import { startBridge } from '../../products/bridge/index.ts';
import { parseOrigin } from '../../products/proxy/options.ts';
import { createCache } from '../../src/index.ts';
import { redactUrl } from '../../src/util/redact-url.ts';

const SECRET = 's3cr3t-Pa55';

/** The message of what `run` throws (or rejects with). */
async function messageOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('it did not throw');
}

describe('URLs in messages', () => {
  it.each([
    ['a URL with a user and a password', 'redis://user:s3cr3t-Pa55@127.0.0.1:6379/0', 'redis://user:***@127.0.0.1:6379/0'],
    ['a password alone', 'redis://:s3cr3t-Pa55@cache:6379', 'redis://:***@cache:6379'],
    ['a password in the query', 'redis://cache:6379/?password=s3cr3t-Pa55&db=1', 'redis://cache:6379/?password=***&db=1'],
    ['a token in the query', 'https://kv.example/?token=s3cr3t-Pa55', 'https://kv.example/?token=***'],
    ['a malformed URL (bad port)', 'redis://:s3cr3t-Pa55@cache:notaport', 'redis://***@cache:notaport'],
    ['a malformed URL whose password holds / and @', 'redis://u:s3cr/et@Pa55@cache:99999', 'redis://***@cache:99999'],
    ['a malformed URL with a password parameter', 'redis://cache:bad/?x=1&password=s3cr3t-Pa55#f', 'redis://cache:bad/?x=1&password=***#f'],
    ['text with no secret', 'not a url at all', 'not a url at all'],
    ['a URL with no secret, quoted as written (not normalised)', 'https://x.upstash.io', 'https://x.upstash.io'],
  ])('redacts %s', (_, text, redacted) => {
    assert.equal(redactUrl(text), redacted);
  });

  it('reads a long malformed value in linear time (no backtracking)', () => {
    for (const long of [`redis://cache/?${'a&'.repeat(200_000)}password=${'x'.repeat(100_000)}`, `redis://cache:bad/?${'a&'.repeat(200_000)}password=${'x'.repeat(100_000)}`]) {
      assert.ok(!redactUrl(long).includes('xxxx'));
    }
  });

  it.each([
    ['valkeyStore(url), a port that is not a number', () => valkeyStore(`redis://:${SECRET}@cache:notaport`)],
    ['valkeyStore({ url })', () => valkeyStore({ url: `redis://:${SECRET}@cache:6379` } as never)],
    ['valkeyStore({ cluster }), a node with a bad port', () => valkeyStore({ cluster: [`redis://:${SECRET}@cache:99999`] })],
    ['valkeyStore({ cluster }), a malformed node', () => valkeyStore({ cluster: [`redis://:${SECRET}@cache:bad`] })],
    ['valkeyStore({ cluster }), nodes that disagree', () => valkeyStore({ cluster: ['redis://a:7000', `redis://:${SECRET}@b:7001`] })],
    ['upstashStore({ url }) that is not http(s)', () => upstashStore({ url: `ftp://u:${SECRET}@kv.example`, token: 'token' })],
    ['REDIS_URL without a host', () => chooseStore({ REDIS_URL: `redis://:${SECRET}@` })],
    ['UPSTASH_REDIS_REST_URL that is not http(s)', () => chooseStore({ UPSTASH_REDIS_REST_URL: `redis://:${SECRET}@kv.example`, UPSTASH_REDIS_REST_TOKEN: 'token' })],
    ['createCache({ store: url })', () => createCache({ store: `redis://:${SECRET}@cache:6379` as never })],
    ['the proxy origin that does not parse', () => parseOrigin(`http://u:${SECRET}@origin.example:notaport`)],
    ['the proxy origin that is not http', () => parseOrigin(`ftp://u:${SECRET}@origin.example`)],
    ['the bridge, Redis not reachable', () => startBridge({ redisUrl: `redis://:${SECRET}@127.0.0.1:1`, token: 'a-token-of-16-chars' })],
  ])('%s: the error names the URL without its password', async (_, run) => {
    const message = await messageOf(run);
    assert.ok(!message.includes(SECRET) && !message.includes('s3cr3t'), message);
    assert.match(message, /\*\*\*/);
  });
});
