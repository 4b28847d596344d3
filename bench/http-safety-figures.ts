/**
 * Issue 10's HTTP-layer reproductions (items 5, 7, 8, 9 and 10) as figures, against this tree
 * or another checkout (for before/after): variants lost when first variants of cold URLs
 * arrive together, purged bodies served after purge, what a bad stored response gets, whether
 * Cache-Status claims `stored` when it cannot be, how long a joiner of a never-ending body
 * waits. In-process, memory store, bounded in calls and time.
 *
 *   npx tsx bench/http-safety-figures.ts                      # this tree
 *   npx tsx bench/http-safety-figures.ts /tmp/cachette-main   # another checkout
 *   npx tsx bench/http-safety-figures.ts --quick
 */
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const root = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? fileURLToPath(new URL('..', import.meta.url));
const URLS = quick ? 10 : 100;
const ROUNDS = quick ? 20 : 100;
// withCache, or httpCache in a checkout from before the rename.
const http = await import(`${root}/src/http/index.ts`);
const withCache = http.withCache ?? http.httpCache;
const { memoryStore } = await import(`${root}/adapters/memory/index.ts`);
const { createCache } = await import(`${root}/src/cache/create-cache.ts`);
const enc = new TextEncoder();
const out: Record<string, unknown> = {};

// item 10: first variants of cold URLs arriving together
{
  const store = memoryStore({ maxEntries: 100_000, maxBytes: 512 * 1024 * 1024 });
  const cached = withCache(async (req: Request) => new Response(`v ${req.headers.get('x-v')}`, { headers: { 'cache-control': 'max-age=600', vary: 'X-V' } }), { store, maxVariants: 100_000 });
  let lost = 0;
  for (let u = 0; u < URLS; u++) {
    await Promise.all(Array.from({ length: 100 }, (_, i) => cached(new Request(`http://x/u${u}`, { headers: { 'x-v': String(i) } })).then((r: Response) => r.text())));
    await cached.idle();
  }
  for (let u = 0; u < URLS; u++) {
    const res = await Promise.all(Array.from({ length: 100 }, (_, i) => cached(new Request(`http://x/u${u}`, { headers: { 'x-v': String(i) } }))));
    for (const r of res) {
      if (!/hit/.test(r.headers.get('cache-status') ?? '')) lost++;
      await r.text();
    }
  }
  out[`item 10: variants lost, of ${URLS * 100} (${URLS} cold URLs × 100 first variants at once)`] = lost;
  await cached.close();
}

// item 8: purge right after a stored response
{
  let n = 0;
  const cached = withCache(async () => new Response(`v${++n}`, { headers: { 'cache-control': 'max-age=600', 'cache-tag': 't' } }), { store: memoryStore() });
  let old = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const a = await cached(new Request('http://x/p'));
    const body = await a.text();
    await cached.purge(i % 2 ? { url: 'http://x/p' } : { tag: 't' });
    const b = await cached(new Request('http://x/p'));
    if ((await b.text()) === body) old++;
    await cached.idle();
    await cached.purge({ url: 'http://x/p' });
  }
  out[`item 8: purged body served right after purge, of ${ROUNDS}`] = old;
  await cached.close();
}

// item 9: bad stored responses
{
  const store = memoryStore();
  const cache = createCache({ store, namespace: 'http', compression: false });
  const seed = withCache(async () => new Response('good', { headers: { 'cache-control': 'max-age=600' } }), { cache });
  await (await seed(new Request('http://x/c'))).text();
  await seed.idle();
  const good = await cache.get('u:http://x/c');
  const results: string[] = [];
  for (const [what, entry] of [
    ['bad name', { ...good, headers: [['bad name', 'x']] }],
    ['CRLF', { ...good, headers: [['x', 'a\r\nb: c']] }],
    ['101', { ...good, status: 101 }],
    ['999', { ...good, status: 999 }],
  ] as const) {
    await cache.set('u:http://x/c', entry, { ttl: 600_000 });
    const cached = withCache(async () => new Response('from origin', { headers: { 'cache-control': 'no-store' } }), { cache });
    try {
      const r = await cached(new Request('http://x/c'));
      results.push(`${what}: ${r.status} ${JSON.stringify((await r.text()).slice(0, 20))}`);
    } catch (e) {
      results.push(`${what}: threw ${(e as Error).message.slice(0, 60)} (a binding answers 500)`);
    }
  }
  out['item 9: bad stored responses'] = results;
}

// item 7: Cache-Status `stored` for a chunked body above maxBodyBytes, and with the circuit open
{
  const big = () =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(enc.encode('x'.repeat(5000)));
          c.close();
        },
      }),
      { headers: { 'cache-control': 'max-age=600' } },
    );
  const cached = withCache(async () => big(), { store: memoryStore(), maxBodyBytes: 1000 });
  const r = await cached(new Request('http://x/big'));
  await r.text();
  await cached.idle();
  const again = await cached(new Request('http://x/big'));
  out['item 7: chunked body above maxBodyBytes'] = `claimed: ${r.headers.get('cache-status')} / then: ${again.headers.get('cache-status')}`;
  await again.text();
  const failing = {
    name: 'down',
    local: true,
    get: () => Promise.reject(new Error('down')),
    getMany: () => Promise.reject(new Error('down')),
    set: () => Promise.reject(new Error('down')),
    setMany: () => Promise.reject(new Error('down')),
    delete: () => Promise.reject(new Error('down')),
    incr: () => Promise.reject(new Error('down')),
    close: async () => {},
  };
  const down = withCache(async () => new Response('x', { headers: { 'cache-control': 'max-age=600' } }), { store: failing });
  let claims = 0;
  for (let i = 0; i < 10; i++) {
    const d = await down(new Request(`http://x/d${i}`));
    if (/stored/.test(d.headers.get('cache-status') ?? '')) claims++;
    await d.text();
    await down.idle();
  }
  out['item 7: `stored` claimed with the store down (circuit open after 5), of 10'] = claims;
}

// item 5: an origin that never finishes its body
{
  const cached = withCache(
    async () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(enc.encode('part'));
          },
        }),
        { headers: { 'cache-control': 'max-age=600' } },
      ),
    { store: memoryStore(), originIdleTimeout: 1000 },
  );
  const first = await cached(new Request('http://x/hang'));
  const reader = first.body!.getReader();
  await reader.read();
  const started = Date.now();
  const joiner = cached(new Request('http://x/hang')).then(async (r: Response) => {
    try {
      await r.text();
      return `status ${r.status}, body failed? no`;
    } catch (e) {
      return `status ${r.status}, body failed: ${(e as Error).name}`;
    }
  });
  const verdict = await Promise.race([
    joiner.then((v: string) => `${v} after ${Date.now() - started} ms`),
    new Promise((r) => setTimeout(() => r(`still waiting after ${Date.now() - started} ms`), 5000)),
  ]);
  out['item 5: a joiner of a body that never ends (originIdleTimeout 1 s)'] = verdict;
  reader.cancel().catch(() => {});
}
console.log(JSON.stringify(out, null, 2));
process.exit(0);
