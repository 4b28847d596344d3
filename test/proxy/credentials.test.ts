// Issue 23, item 7, through `cachette proxy --ttl`: a per-user page answered with an origin's
// default headers (no Cache-Control) is never stored from a request that carries a Cookie or
// Authorization and served to the next visitor (web cache deception); without credentials the
// ttl applies as before.
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { Started } from '../../products/shared/command.ts';
import { runCli } from '../../products/cli/run.ts';
import { closesAfterEach, recordingOrigin, terminal } from './support.ts';

const closing = closesAfterEach();

describe('cachette proxy --ttl and credentials', () => {
  it("never serves Alice's /api/me to a request without her cookie", async () => {
    const origin = closing(
      await recordingOrigin((req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ user: req.headers.cookie ?? req.headers.authorization ?? 'anonymous' }));
      }),
    );
    const io = terminal();
    const proxy = (await runCli(['proxy', '--origin', origin.url, '--port', '0', '--ttl', '30s'], io)) as Started;
    closing({ close: () => proxy.stop() });
    const url = /cachette proxy: (http:\/\/\S+)/.exec(io.stdout[0]!)![1]!;
    const me = async (headers: Record<string, string> = {}) => {
      const res = await fetch(`${url}/api/me`, { headers });
      return { body: await res.text(), cs: res.headers.get('cache-status') ?? '' };
    };
    assert.equal((await me({ cookie: 'session=alice' })).body, '{"user":"session=alice"}');
    assert.equal((await me({ authorization: 'Bearer alice' })).body, '{"user":"Bearer alice"}');
    const anonymous = await me();
    assert.equal(anonymous.body, '{"user":"anonymous"}', 'nothing from a credentialed request was served');
    assert.match(anonymous.cs, /fwd=uri-miss; fwd-status=200; ttl=(29|30); stored/);
    assert.match((await me()).cs, /^cachette; hit/, 'the anonymous answer is stored for the ttl');
    assert.equal(origin.received.length, 3);
  });
});
