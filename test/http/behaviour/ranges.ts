/** Byte ranges (RFC 9110 §14, §13.1.5; RFC 9111 §3.3–3.4). */
import assert from 'node:assert/strict';
import { formatHttpDate } from '../../../src/http/rules/http-date.ts';
import { reply } from '../scripted-origin.ts';
import { DAY, numbered, SECOND, type ScenarioFn } from './harness.ts';

const BODY = '0123456789abcdefghij';

/** An origin that supports single byte ranges and If-Range over `body`, with a strong ETag. */
function rangedOrigin(body: string, etag: string, headers: Record<string, string>) {
  return (req: Request) => {
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.get('range') ?? '');
    const ifRange = req.headers.get('if-range');
    if (!range || (ifRange !== null && ifRange !== etag)) return reply(body, { etag, 'accept-ranges': 'bytes', ...headers });
    const start = range[1] === '' ? body.length - Number(range[2]) : Number(range[1]);
    const end = range[1] === '' || range[2] === '' ? body.length - 1 : Math.min(Number(range[2]), body.length - 1);
    return reply(body.slice(start, end + 1), { etag, 'accept-ranges': 'bytes', 'content-range': `bytes ${start}-${end}/${body.length}`, ...headers }, 206);
  };
}

export function rangeScenarios(scenario: ScenarioFn): void {
  scenario('answers single ranges from a stored 200 with 206 and Content-Range, keeping the stored fields', {}, async ({ origin, get }) => {
    origin.on('/r', () => reply(BODY, { 'cache-control': 'max-age=60', 'x-kept': 'yes', 'content-type': 'text/plain' }));
    await get('/r');
    for (const [range, body, contentRange] of [
      ['bytes=0-3', '0123', 'bytes 0-3/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=18-99', 'ij', 'bytes 18-19/20'],
    ] as const) {
      const r = await get('/r', { headers: { range } });
      assert.equal(r.status, 206, range);
      assert.equal(r.body, body, range);
      assert.equal(r.headers.get('content-range'), contentRange, range);
      assert.equal(r.headers.get('content-length'), String(body.length), range);
      assert.equal(r.headers.get('x-kept'), 'yes', range);
      assert.equal(r.headers.get('content-type'), 'text/plain', range);
      assert.match(r.cs, /^cachette; hit; ttl=60/, range);
    }
    assert.equal(origin.count('/r'), 1);
  });

  scenario('answers an unsatisfiable range with 416 and Content-Range: bytes */length', {}, async ({ origin, get }) => {
    origin.on('/r', () => reply(BODY, { 'cache-control': 'max-age=60' }));
    await get('/r');
    for (const range of ['bytes=20-', 'bytes=100-200', 'bytes=-0']) {
      const r = await get('/r', { headers: { range } });
      assert.equal(r.status, 416, range);
      assert.equal(r.headers.get('content-range'), 'bytes */20', range);
      assert.equal(r.body, '', range);
    }
    assert.equal(origin.count('/r'), 1);
  });

  scenario('If-Range with the current strong ETag or Last-Modified date gives the range; anything else the whole response', {}, async ({ origin, clock, get }) => {
    const lm = formatHttpDate(clock.now() - DAY);
    origin.on('/e', () => reply(BODY, { 'cache-control': 'max-age=60', etag: '"v1"' }));
    origin.on('/w', () => reply(BODY, { 'cache-control': 'max-age=60', etag: 'W/"v1"' }));
    origin.on('/d', () => reply(BODY, { 'cache-control': 'max-age=60', 'last-modified': lm }));
    for (const p of ['/e', '/w', '/d']) await get(p);
    const cases: Array<[string, string, number]> = [
      ['/e', '"v1"', 206],
      ['/e', '"v0"', 200],
      ['/e', 'W/"v1"', 200],
      ['/w', 'W/"v1"', 200],
      ['/w', '"v1"', 200],
      ['/d', lm, 206],
      ['/d', formatHttpDate(clock.now() - 2 * DAY), 200],
      ['/d', 'not a date', 200],
    ];
    for (const [path, ifRange, status] of cases) {
      // A fetch() client adds Cache-Control: no-cache to a request with If-Range unless it has a Cache-Control already.
      const r = await get(path, { headers: { range: 'bytes=0-1', 'if-range': ifRange, 'cache-control': 'no-transform' } });
      assert.equal(r.status, status, `${path} If-Range: ${ifRange}`);
      assert.equal(r.body, status === 206 ? '01' : BODY);
    }
    assert.deepEqual([origin.count('/e'), origin.count('/w'), origin.count('/d')], [1, 1, 1]);
  });

  scenario('leaves multi-range requests to the origin, and ignores an invalid Range', {}, async ({ origin, get }) => {
    origin.on('/r', numbered({ 'cache-control': 'max-age=60' }));
    await get('/r');
    const multi = await get('/r', { headers: { range: 'bytes=0-0,2-3' } });
    assert.equal(multi.cs, 'cachette; fwd=bypass; fwd-status=200; detail="multiple-ranges"');
    assert.equal(origin.seen[1]!.headers.get('range'), 'bytes=0-0,2-3');
    for (const range of ['bytes=5-2', 'lines=1-2', 'bytes=x-']) {
      const r = await get('/r', { headers: { range } });
      assert.equal(r.status, 200, range);
      assert.equal(r.body, 'v1', range);
      assert.match(r.cs, /hit/, range);
    }
    assert.equal(origin.count('/r'), 2);
  });

  scenario('a range request on a cold URL goes to the origin with its Range; a full 200 answer is stored for later ranges', {}, async ({ origin, get }) => {
    origin.on('/cold', () => reply(BODY, { 'cache-control': 'max-age=60' }));
    const first = await get('/cold', { headers: { range: 'bytes=0-1' } });
    assert.equal(origin.seen[0]!.headers.get('range'), 'bytes=0-1');
    assert.equal(first.status, 200, 'an origin that ignores Range answers in full, and so does the cache');
    assert.match(first.cs, /fwd=uri-miss; fwd-status=200; ttl=60; stored/);
    const second = await get('/cold', { headers: { range: 'bytes=2-3' } });
    assert.equal(second.status, 206);
    assert.equal(second.body, '23');
    assert.equal(origin.count('/cold'), 1);
  });

  scenario('without storePartial, a 206 from the origin passes through unstored', {}, async ({ origin, get }) => {
    origin.on('/p', rangedOrigin(BODY, '"p1"', { 'cache-control': 'max-age=60' }));
    const r = await get('/p', { headers: { range: 'bytes=0-4' } });
    assert.equal(r.status, 206);
    assert.equal(r.body, '01234');
    assert.match(r.cs, /fwd-status=206; detail="status"/);
    assert.equal((await get('/p', { headers: { range: 'bytes=0-4' } })).status, 206);
    assert.equal(origin.count('/p'), 2);
  });

  scenario('storePartial: serves ranges within stored parts, and completes a full request with only the missing part', { storePartial: true }, async ({ origin, clock, get }) => {
    origin.on('/p', rangedOrigin(BODY, '"p1"', { 'cache-control': 'max-age=60', 'x-kept': 'yes' }));
    const part = await get('/p', { headers: { range: 'bytes=0-9' } });
    assert.equal(part.status, 206);
    assert.equal(part.body, '0123456789');
    assert.match(part.cs, /fwd=uri-miss; fwd-status=206; stored/);
    const within = await get('/p', { headers: { range: 'bytes=2-4' } });
    assert.equal(within.status, 206);
    assert.equal(within.body, '234');
    assert.equal(within.headers.get('content-range'), 'bytes 2-4/20');
    assert.equal(within.headers.get('x-kept'), 'yes');
    assert.match(within.cs, /^cachette; hit/);
    assert.equal((await get('/p', { headers: { range: 'bytes=25-' } })).status, 416, 'the stored length tells what is unsatisfiable');
    assert.equal(origin.count('/p'), 1);
    clock.advance(SECOND);
    const full = await get('/p');
    assert.equal(full.status, 200);
    assert.equal(full.body, BODY);
    assert.match(full.cs, /fwd=partial; fwd-status=206; ttl=60; stored/);
    const asked = origin.seen[1]!;
    assert.equal(asked.headers.get('range'), 'bytes=10-19', 'only the missing part was asked for');
    assert.equal(asked.headers.get('if-range'), '"p1"');
    const hit = await get('/p');
    assert.equal(hit.body, BODY);
    assert.match(hit.cs, /^cachette; hit/);
    assert.equal(hit.headers.get('content-length'), '20');
    assert.equal(origin.count('/p'), 2);
  });

  scenario('storePartial: parts of one representation combine; a part of another replaces them', { storePartial: true }, async ({ origin, get }) => {
    let etag = '"a"';
    origin.on('/c', (req) => rangedOrigin(BODY, etag, { 'cache-control': 'max-age=60' })(req));
    await get('/c', { headers: { range: 'bytes=0-4' } });
    await get('/c', { headers: { range: 'bytes=5-9' } });
    const joined = await get('/c', { headers: { range: 'bytes=3-7' } });
    assert.equal(joined.body, '34567');
    assert.match(joined.cs, /^cachette; hit/, 'two adjoining parts answer a range across both');
    etag = '"b"';
    await get('/c', { headers: { range: 'bytes=15-19' } });
    assert.match((await get('/c', { headers: { range: 'bytes=3-7' } })).cs, /fwd=partial/, "the new representation's part replaced the old parts");
    assert.equal(origin.count('/c'), 4);
  });
}
