// The runtime entry points: Node's serve with and without the cache, Bun's and Deno's types, Workers.
import { serve as bunServe, type BunCachedServer } from 'cachette/bun';
import { serve as denoServe, type DenoServer } from 'cachette/deno';
import { serve, storeFromEnv, withCache as nodeWithCache, zlibCompressor, type NodeCachedServer, type NodeServer } from 'cachette/node';
import { withCache } from 'cachette/workers';
import type { Equal, Expect } from './type-checks.js';

const handler = async (request: Request): Promise<Response> => new Response(request.url);
export const plain: Promise<NodeServer> = serve(handler, { port: 0 });
export const whole: Promise<NodeCachedServer> = serve(handler, { port: 0, cache: { ttl: '30s' } });
export const bun: () => Promise<BunCachedServer> = () => bunServe(handler, { port: 0, cache: true });
export const deno: () => Promise<DenoServer> = () => denoServe(handler);
export const store = storeFromEnv({ log: false });
export const compressor = zlibCompressor({ format: 'brotli' });
export const wrappedHandler = nodeWithCache(handler, { ttl: '10s' });
export const worker = withCache({ fetch: async () => new Response('hi') });
export type ServerChecks = Expect<Equal<Awaited<typeof whole>['cache']['purge'] extends (target: never) => Promise<number> ? true : false, true>>;
