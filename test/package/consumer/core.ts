// What a user of the package's root entry writes: the cache, wrap, both decorators.
import { cached, cachedResponse, createCache, type Cache, type CacheEventMap, type WrappedFunction } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import type { Equal, Expect, Same } from './type-checks.js';

const store = memoryStore();
const cache: Cache = createCache({ store, ttl: '30s', grace: '5m' });
export const user: Promise<{ id: string }> = cache.getOrSet('user:1', () => ({ id: '1' }));

async function findUser(id: string, options?: { full: boolean }): Promise<{ id: string; full: boolean }> {
  return { id, full: options?.full ?? false };
}
export const wrapped = cache.wrap(findUser, { ttl: '1m', tags: (id) => [`user:${id}`] });
export type WrappedChecks = [
  Expect<Same<Parameters<typeof wrapped>, Parameters<typeof findUser>>>,
  Expect<Same<ReturnType<typeof wrapped>, ReturnType<typeof findUser>>>,
  Expect<Equal<ReturnType<typeof wrapped.keyFor>, string>>,
  Expect<Same<Parameters<WrappedFunction<[id: string], string>['delete']>, [id: string]>>,
];

const pages = cachedResponse({ store, ttl: '10s' });
export class Users {
  constructor(readonly tenant: string) {}

  @cached(cache, {
    ttl: '1m',
    key(id) {
      return `${this.tenant}:${id}`;
    },
  })
  async find(id: string): Promise<{ id: string }> {
    return { id };
  }

  @pages
  async fetch(request: Request): Promise<Response> {
    return new Response(new URL(request.url).pathname);
  }
}

export type EventChecks = Expect<Equal<keyof CacheEventMap extends string ? true : false, true>>;
