/**
 * Issue 30, item 3 (target): undici's cache semantics over cachette/undici, through a real
 * `fetch` (undici's, with an Agent composed with `interceptors.cache()`) against a local origin
 * over loopback. Every scenario runs twice, side by side: over undici's own MemoryCacheStore and
 * over undiciStore() on Valkey (a real redis-server) and on SQLite. What the client sees (status,
 * body, the headers that matter) and what the origin sees (requests, conditional ones) must be the
 * same over both stores; each scenario also says what that is, so two stores equally wrong fail.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, cacheStores, fetch, interceptors } from 'undici';
import type CacheHandler from 'undici/types/cache-interceptor.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache, type Store } from '../../src/index.ts';
import { CachetteUndiciStore, undiciOriginTag, undiciStore } from '../../runtimes/node/undici/index.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { eventually } from '../support/eventually.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

/** The body bound both stores get in these tests, so the size test stays small. */
const MAX_ENTRY = 64 * 1024;

/** What the origin saw of one request. */
interface Seen {
  path: string;
  method: string;
  ifNoneMatch: string | undefined;
}

/** The local origin: one handler per path prefix, and every request it answered. */
class Origin {
  readonly seen: Seen[] = [];
  #server: Server | undefined;
  #version = new Map<string, number>();
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => this.#handle(request, response));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  /** Requests for paths starting with `prefix`. */
  hits(prefix: string): Seen[] {
    return this.seen.filter((seen) => seen.path.startsWith(prefix));
  }

  /** A new version of the resource (what a write at the origin does). */
  bump(path: string): void {
    this.#version.set(path, (this.#version.get(path) ?? 1) + 1);
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url!, this.url);
    const path = url.pathname;
    this.seen.push({ path, method: request.method!, ifNoneMatch: request.headers['if-none-match'] as string | undefined });
    const version = this.#version.get(path) ?? 1;
    const kind = path.split('/')[2];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      this.bump(path);
      response.writeHead(204).end();
      return;
    }
    switch (kind) {
      case 'fresh':
        response.writeHead(200, { 'cache-control': 'max-age=60', 'content-type': 'text/plain' }).end(`v${version}`);
        return;
      case 'vary': {
        const language = request.headers['accept-language'] ?? 'none';
        response.writeHead(200, { 'cache-control': 'max-age=60', vary: 'accept-language' }).end(`${language} v${version}`);
        return;
      }
      case 'swr':
        // The first version goes stale after a second; the revalidated one stays fresh, so the
        // read after the revalidation is a hit however long a busy host took to get to it.
        response.writeHead(200, { 'cache-control': `max-age=${version === 1 ? 1 : 60}, stale-while-revalidate=60` }).end(`v${version}`);
        return;
      case 'etag': {
        const etag = `"v${version}"`;
        if (request.headers['if-none-match'] === etag) {
          response.writeHead(304, { etag, 'cache-control': 'max-age=2' }).end();
          return;
        }
        response.writeHead(200, { etag, 'cache-control': 'max-age=2' }).end(`v${version}`);
        return;
      }
      case 'stream': {
        // 48 chunks of 1 KiB (under maxEntrySize), each written on its own turn of the event loop.
        response.writeHead(200, { 'cache-control': 'max-age=60' });
        let sent = 0;
        const next = () => {
          if (sent === 48) return void response.end();
          response.write(Buffer.alloc(1024, sent++ % 251));
          setImmediate(next);
        };
        next();
        return;
      }
      case 'large':
        response.writeHead(200, { 'cache-control': 'max-age=60' }).end(Buffer.alloc(MAX_ENTRY * 2, 7));
        return;
      default:
        response.writeHead(404).end();
    }
  }
}

/** Drives fetch through the cache under a path prefix of its own; `stored` reads what the store holds for a GET of a path. */
type Scenario = (get: (path: string, init?: RequestInit) => Promise<Observed>, prefix: string, stored: (path: string) => Promise<string | undefined>) => Promise<void>;

/**
 * Waits past a max-age of `seconds`: the entry turns stale (a TTL passing, as the store
 * contract's expiry tests wait). undici keeps it as long again for revalidation.
 */
const pastMaxAge = (seconds = 1) => new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 300));

/** What the client saw of one response. */
interface Observed {
  status: number;
  body: string;
}

type CacheStore = CacheHandler.CacheStore;

/** A store under test, made fresh for each scenario run. */
interface StoreKind {
  name: string;
  open(): CacheStore;
  close(store: CacheStore): Promise<void>;
}

const origin = new Origin();
let run = 0;

/**
 * Runs `scenario` over a fresh store of `kind`, with fetch through the cache interceptor, under
 * a path prefix of its own; resolves what the client and the origin saw.
 */
async function runOver(kind: StoreKind, scenario: Scenario): Promise<{ client: Observed[]; origin: Seen[] }> {
  const store = kind.open();
  const dispatcher = new Agent().compose(interceptors.cache({ store }));
  const prefix = `/run${++run}`;
  const client: Observed[] = [];
  const get = async (path: string, init?: RequestInit): Promise<Observed> => {
    const response = await fetch(`${origin.url}${prefix}${path}`, { ...init, dispatcher } as Parameters<typeof fetch>[1]);
    const bytes = Buffer.from(await response.arrayBuffer());
    // Long bodies compared by digest: the observation stays readable.
    const observed = { status: response.status, body: bytes.length > 64 ? `sha256:${createHash('sha256').update(bytes).digest('hex')}:${bytes.length}` : bytes.toString() };
    client.push(observed);
    return observed;
  };
  const stored = async (path: string): Promise<string | undefined> => {
    const found = await store.get({ origin: origin.url, method: 'GET', path: `${prefix}${path}`, headers: {} });
    return found && Buffer.concat((found.body as Buffer[] | undefined) ?? []).toString();
  };
  try {
    await scenario(get, prefix, stored);
  } finally {
    await dispatcher.close();
    await kind.close(store);
  }
  return { client, origin: origin.hits(`${prefix}/`).map((seen) => ({ ...seen, path: seen.path.slice(prefix.length) })) };
}

const undiciMemory: StoreKind = {
  name: "undici's MemoryCacheStore",
  open: () => new cacheStores.MemoryCacheStore({ maxEntrySize: MAX_ENTRY }),
  close: async () => {},
};

function cachetteKind(name: string, openStore: () => Store): StoreKind {
  return {
    name,
    open: () => undiciStore({ store: openStore(), maxEntrySize: MAX_ENTRY }),
    close: (store) => (store as CachetteUndiciStore).close(),
  };
}

const kinds: StoreKind[] = [cachetteKind('undiciStore on SQLite', () => tempSqliteStore())];
if (requireRedis()) kinds.push(cachetteKind('undiciStore on Valkey', () => valkeyStore(redisUrl!)));

/** The scenarios: each drives fetch through the cache, then says what it expects of the observations. */
const scenarios: Array<{
  name: string;
  scenario: Scenario;
  expected: (seen: Awaited<ReturnType<typeof runOver>>) => void;
}> = [
  {
    name: 'a fresh response is served from the store: the origin answers once',
    scenario: async (get) => {
      await get('/fresh/a');
      await get('/fresh/a');
      await get('/fresh/a');
    },
    expected: ({ client, origin }) => {
      expect(client).toEqual([
        { status: 200, body: 'v1' },
        { status: 200, body: 'v1' },
        { status: 200, body: 'v1' },
      ]);
      expect(origin).toHaveLength(1);
    },
  },
  {
    name: 'Vary: one entry per accept-language, each served to its own requests',
    scenario: async (get) => {
      for (const language of ['en', 'fr', 'en', 'fr']) await get('/vary/a', { headers: { 'accept-language': language } });
      await get('/vary/a');
    },
    expected: ({ client, origin }) => {
      // fetch sends `accept-language: *` when the request names none.
      expect(client.map((seen) => seen.body)).toEqual(['en v1', 'fr v1', 'en v1', 'fr v1', '* v1']);
      expect(origin).toHaveLength(3);
    },
  },
  {
    name: 'stale-while-revalidate: a stale entry is served at once while one revalidation runs, then the new one',
    scenario: async (get, prefix, stored) => {
      await get('/swr/a');
      origin.bump(`${prefix}/swr/a`);
      await pastMaxAge();
      await get('/swr/a');
      // The revalidation runs after the stale answer: wait until its response is stored.
      await eventually(async () => (await stored('/swr/a')) === 'v2', 'the revalidated response is stored');
      await get('/swr/a');
    },
    expected: ({ client, origin }) => {
      expect(client).toEqual([
        { status: 200, body: 'v1' },
        { status: 200, body: 'v1' },
        { status: 200, body: 'v2' },
      ]);
      expect(origin).toHaveLength(2);
    },
  },
  {
    name: 'revalidation: a stale entry with an ETag is revalidated; a 304 is answered from the store, a 200 with the new body',
    scenario: async (get, prefix) => {
      await get('/etag/a');
      await get('/etag/a');
      await pastMaxAge(2);
      await get('/etag/a');
      await get('/etag/a');
      origin.bump(`${prefix}/etag/a`);
      await pastMaxAge(2);
      await get('/etag/a');
    },
    expected: ({ client, origin }) => {
      expect(client.map((seen) => seen.body)).toEqual(['v1', 'v1', 'v1', 'v1', 'v2']);
      expect(client.every((seen) => seen.status === 200)).toBe(true);
      // undici 7 revalidates the entry it rewrote after the 304 once more, and asks without a
      // validator after that: what it does over its own store, and so over this one.
      expect(origin.map((seen) => seen.ifNoneMatch)).toEqual([undefined, '"v1"', '"v1"', undefined]);
    },
  },
  {
    name: 'an unsafe method deletes the URL’s entries (every variant); other URLs stay',
    scenario: async (get) => {
      await get('/vary/item', { headers: { 'accept-language': 'en' } });
      await get('/vary/item', { headers: { 'accept-language': 'fr' } });
      await get('/fresh/other');
      await get('/vary/item', { method: 'POST', body: 'change' });
      await get('/vary/item', { headers: { 'accept-language': 'en' } });
      await get('/vary/item', { headers: { 'accept-language': 'fr' } });
      await get('/fresh/other');
    },
    expected: ({ client, origin }) => {
      expect(client.map((seen) => seen.body)).toEqual(['en v1', 'fr v1', 'v1', '', 'en v2', 'fr v2', 'v1']);
      expect(origin.map((seen) => `${seen.method} ${seen.path}`)).toEqual(['GET /vary/item', 'GET /vary/item', 'GET /fresh/other', 'POST /vary/item', 'GET /vary/item', 'GET /vary/item']);
    },
  },
  {
    name: 'a body streamed in many chunks is stored whole and served whole',
    scenario: async (get) => {
      await get('/stream/a');
      await get('/stream/a');
    },
    expected: ({ client, origin }) => {
      expect(client[0]!.body).toMatch(/^sha256:[0-9a-f]{64}:49152$/);
      expect(client[1]).toEqual(client[0]);
      expect(origin).toHaveLength(1);
    },
  },
  {
    name: 'a body above maxEntrySize is served but not stored: the origin is asked every time',
    scenario: async (get) => {
      await get('/large/a');
      await get('/large/a');
    },
    expected: ({ client, origin }) => {
      expect(client[0]!.body).toMatch(new RegExp(`:${MAX_ENTRY * 2}$`));
      expect(client[1]).toEqual(client[0]);
      expect(origin).toHaveLength(2);
    },
  },
];

beforeAll(() => origin.start());
afterAll(() => origin.stop());

describe.each(kinds)('undici’s cache interceptor: $name behaves as undici’s MemoryCacheStore', (kind) => {
  for (const { name, scenario, expected } of scenarios) {
    it(name, async () => {
      const reference = await runOver(undiciMemory, scenario);
      expected(reference);
      const ours = await runOver(kind, scenario);
      expect(ours).toEqual(reference);
    }, 30_000);
  }
});

describe('undiciStore: what only cachette adds', () => {
  let cache: Cache;
  beforeAll(() => {
    cache = createCache({ store: tempSqliteStore(), prefix: uniqueNamespace('undici') });
  });
  afterAll(() => cache.close());

  it('keeps responses in the cache’s key space, and invalidateTags of their origin drops them in every process', async () => {
    const store = undiciStore({ store: cache });
    const dispatcher = new Agent().compose(interceptors.cache({ store }));
    const url = `${origin.url}/tags/fresh/a`;
    await (await fetch(url, { dispatcher })).text();
    const keys: string[] = [];
    for await (const key of cache.keys('undici:')) keys.push(key);
    expect(keys).toContain(`undici:${origin.url}/tags/fresh/a`);
    await (await fetch(url, { dispatcher })).text();
    expect(origin.hits('/tags/fresh/a')).toHaveLength(1);
    // Another process would do the same over the shared store.
    expect(await cache.invalidateTags([undiciOriginTag(origin.url)])).toBe(true);
    await (await fetch(url, { dispatcher })).text();
    expect(origin.hits('/tags/fresh/a')).toHaveLength(2);
    await dispatcher.close();
  });

  it('adds the tags a function gives, e.g. from a response header', async () => {
    const store = undiciStore({ store: cache, tags: (key) => (key.path.includes('/users/') ? ['users'] : []) });
    const dispatcher = new Agent().compose(interceptors.cache({ store }));
    const url = `${origin.url}/users/fresh/1`;
    await (await fetch(url, { dispatcher })).text();
    await cache.invalidateTags(['users']);
    await (await fetch(url, { dispatcher })).text();
    expect(origin.hits('/users/fresh/1')).toHaveLength(2);
    await dispatcher.close();
  });

  it('a URL too long to be a key is passed through, not stored', async () => {
    const store = undiciStore({ store: cache });
    const key = { origin: origin.url, method: 'GET', path: `/${'x'.repeat(9000)}` };
    expect(store.createWriteStream(key, { statusCode: 200, statusMessage: 'OK', headers: {}, cachedAt: 0, staleAt: 1, deleteAt: Date.now() + 60_000 })).toBeUndefined();
    expect(await store.get(key)).toBeUndefined();
  });

  it('a stored value of another shape under its key is a miss, not an error', async () => {
    const store = undiciStore({ store: cache });
    const key = { origin: origin.url, method: 'GET', path: '/foreign' };
    await cache.set(`undici:${origin.url}/foreign`, { variants: [{ id: 'x', method: 'GET', deleteAt: Date.now() + 60_000 }] });
    await cache.set(`undici:${origin.url}/foreign#x`, { body: 'not bytes' });
    expect(await store.get(key)).toBeUndefined();
  });

  it('refuses bad options and bad keys as undici’s stores do', () => {
    expect(() => undiciStore({ store: cache, maxEntrySize: 0 })).toThrow(/"maxEntrySize" must be a positive integer/);
    expect(() => undiciStore({ store: cache, maxVariants: 1.5 })).toThrow(/"maxVariants" must be a positive integer/);
    expect(() => undiciStore({ store: cache, tag: [] } as never)).toThrow(/tag/);
    expect(() => undiciStore({} as never)).toThrow(/undiciStore\(\): needs a cachette store/);
    const store = undiciStore({ store: cache });
    expect(() => store.createWriteStream({ origin: 'x', method: 'GET' } as never, {} as never)).toThrow(/expected key.path to be string/);
  });
});
