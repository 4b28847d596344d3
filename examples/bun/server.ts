// Bun.serve with the whole handler behind the HTTP cache. Run: `node_modules/.bin/bun examples/bun/server.ts`
// (VALKEY_URL=redis://127.0.0.1:6379 to share the cache through Valkey; memory otherwise).
import { serve } from 'cachette/bun';

async function origin(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname !== '/') return new Response('not found', { status: 404 });
  // Pretend this is expensive: the cache answers the next requests for 10 s without calling it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return Response.json({ runtime: 'bun', renderedAt: new Date().toISOString() }, { headers: { 'cache-control': 'public, max-age=10' } });
}

// `cache: true`: every response goes through the cache, its store picked from the environment.
const server = await serve(origin, { port: Number(process.env.PORT ?? 3000), cache: true });
console.log(`listening on ${server.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void server.close());
