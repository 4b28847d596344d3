/**
 * The Worker of bench/compression/workerd.ts, run in workerd through miniflare. Each request
 * repeats one measured operation `n` times and answers when done; the host reads workerd's
 * CPU time around it (a Worker's own clock stands still while it computes).
 *
 *   /micro?impl=fflate|native|stream&payload=…&n=…   compress + decompress of the payload's JSON
 *   /http?mode=off|fflate|native&payload=…&n=…         cache.set + cache.get over the upstash store
 */
import { upstashStore } from '../../adapters/upstash/index.ts';
import { fflateDeflate, runtimeZlib, zlibDeflate, type Compressor } from '../../src/codec/compression.ts';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { rowsPayload, smallValue } from '../support/payloads.ts';

interface Env {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

const rows = rowsPayload();
/** The payloads measured: the /work mix's two values, and row counts in between for the threshold. */
export const PAYLOADS: Record<string, unknown> = {
  small: smallValue(7),
  rows3: rows.slice(0, 3),
  rows6: rows.slice(0, 6),
  rows13: rows.slice(0, 13),
  rows26: rows.slice(0, 26),
  rows52: rows.slice(0, 52),
  doc: rows,
};

const encoder = new TextEncoder();

function payloadOf(url: URL): unknown {
  const value = PAYLOADS[url.searchParams.get('payload') ?? ''];
  if (value === undefined) throw new Error(`unknown payload; known: ${Object.keys(PAYLOADS).join(', ')}`);
  return value;
}

function compressorOf(name: string): Compressor {
  if (name === 'fflate') return fflateDeflate(1);
  const zlib = runtimeZlib();
  if (!zlib) throw new Error('no native zlib here (nodejs_compat off?)');
  return zlibDeflate(zlib, 1);
}

async function streamRoundTrip(input: Uint8Array): Promise<number> {
  const packed = await new Response(new Blob([input as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer();
  const back = await new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer();
  if (back.byteLength !== input.length) throw new Error('CompressionStream did not round-trip');
  return packed.byteLength;
}

async function micro(url: URL, n: number): Promise<Record<string, unknown>> {
  const input = encoder.encode(JSON.stringify(payloadOf(url)));
  const impl = url.searchParams.get('impl') ?? '';
  let packedBytes = 0;
  if (impl === 'stream') {
    for (let i = 0; i < n; i++) packedBytes = await streamRoundTrip(input);
  } else {
    const compressor = compressorOf(impl);
    for (let i = 0; i < n; i++) {
      const packed = compressor.compress(input);
      if (compressor.decompress(packed, input.length).length !== input.length) throw new Error(`${impl} did not round-trip`);
      packedBytes = packed.length;
    }
  }
  return { inputBytes: input.length, packedBytes };
}

const caches = new Map<string, { cache: Cache; store: Store }>();

function cacheFor(mode: string, env: Env): { cache: Cache; store: Store } {
  const open = caches.get(mode);
  if (open) return open;
  const store = upstashStore({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, autoPipelining: false });
  // As cachette/workers opens it (batch: false); compression on from the first byte, or off.
  const cache = createCache({ store, prefix: `zbench-${mode}`, batch: false, compression: mode === 'off' ? false : { threshold: 0, compressor: compressorOf(mode) } });
  caches.set(mode, { cache, store });
  return { cache, store };
}

async function http(url: URL, n: number, env: Env): Promise<Record<string, unknown>> {
  const mode = url.searchParams.get('mode') ?? '';
  const payload = url.searchParams.get('payload') ?? '';
  const value = payloadOf(url);
  const { cache, store } = cacheFor(mode, env);
  for (let i = 0; i < n; i++) {
    await cache.set(payload, value);
    if ((await cache.get(payload)) === undefined) throw new Error('the value did not come back');
  }
  const stored = await store.get(`zbench-${mode}:${payload}`);
  return { storedBytes: stored?.length };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n') ?? '1');
    try {
      if (url.pathname === '/micro') return Response.json(await micro(url, n));
      if (url.pathname === '/http') return Response.json(await http(url, n, env));
      if (url.pathname === '/probe') return Response.json({ native: runtimeZlib() !== undefined });
      return new Response('not found', { status: 404 });
    } catch (error) {
      return new Response(String((error as Error).stack ?? error), { status: 500 });
    }
  },
};
