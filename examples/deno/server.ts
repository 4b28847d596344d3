// Deno.serve behind the HTTP cache. Run:
//   node_modules/.bin/deno run --allow-net --allow-env examples/deno/server.ts
// (VALKEY_URL=redis://127.0.0.1:6379 to share the cache through Valkey; memory otherwise).
import { serve } from '../../runtimes/deno/index.ts';

async function origin(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname !== '/') return new Response('not found', { status: 404 });
  // Pretend this is expensive: the cache answers the next requests for 10 s without calling it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return Response.json({ runtime: 'deno', renderedAt: new Date().toISOString() }, { headers: { 'cache-control': 'public, max-age=10' } });
}

const { url } = await serve(origin, { port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
