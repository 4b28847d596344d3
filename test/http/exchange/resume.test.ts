/** The own path of a client that fell behind on a shared body: the rest of the same representation, from its offset. */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { resumer } from '../../../src/http/exchange/resume.ts';

const BODY = '0123456789';
const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe('resumer', () => {
  const request = new Request('http://x/big', { headers: { 'if-none-match': '"old"', 'x-kept': 'yes' } });

  it('asks for the rest with Range and If-Range, and takes a 206 from that offset', async () => {
    let seen: Headers | undefined;
    const open = resumer(
      async (req) => {
        seen = req.headers;
        return new Response(BODY.slice(4), { status: 206, headers: { etag: '"e"', 'content-range': 'bytes 4-9/10' } });
      },
      request,
      '"e"',
      1000,
    )!;
    assert.equal(await text(await open(4)), '456789');
    assert.equal(seen!.get('range'), 'bytes=4-');
    assert.equal(seen!.get('if-range'), '"e"');
    assert.equal(seen!.get('if-none-match'), null);
    assert.equal(seen!.get('x-kept'), 'yes');
  });

  it('skips up to the offset in a 200 of the same representation', async () => {
    const open = resumer(async () => new Response(BODY, { headers: { etag: '"e"' } }), request, '"e"', 1000)!;
    assert.equal(await text(await open(7)), '789');
  });

  it('refuses another representation, and has no path without a strong ETag', async () => {
    const open = resumer(async () => new Response(BODY, { headers: { etag: '"f"' } }), request, '"e"', 1000)!;
    await assert.rejects(open(3), /no longer serves the representation/);
    assert.equal(
      resumer(async () => new Response(BODY), request, 'W/"e"', 1000),
      undefined,
    );
    assert.equal(
      resumer(async () => new Response(BODY), request, null, 1000),
      undefined,
    );
  });
});
