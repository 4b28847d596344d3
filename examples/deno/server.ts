// Deno.serve with the whole handler behind the HTTP cache. Run:
//   node_modules/.bin/deno run --allow-net --allow-env --allow-read --import-map examples/deno/import_map.json examples/deno/server.ts
// (VALKEY_URL=redis://127.0.0.1:6379 to share the cache through Valkey; memory otherwise). The
// import map stands in for the package: an app that installed cachette imports it the same way.
import { serve } from 'cachette/deno';

async function origin(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname !== '/') return new Response('not found', { status: 404 });
  // Pretend this is expensive: the cache answers the next requests for 10 s without calling it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return Response.json({ runtime: 'deno', renderedAt: new Date().toISOString() }, { headers: { 'cache-control': 'public, max-age=10' } });
}

// `cache: true`: every response goes through the cache, its store picked from Deno.env.
const server = await serve(origin, { port: Number(process.env.PORT ?? 3000), cache: true });
console.log(`listening on ${server.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void server.close());
