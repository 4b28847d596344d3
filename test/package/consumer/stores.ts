// Every store adapter, typed: in particular the Valkey client (TS2709 made it a namespace, and
// skipLibCheck made it any).
import type { Redis } from 'iovalkey';
import { bunRedisStore, hasBunRedisClient, type BunRedisClient } from 'cachette/adapters/bun-redis';
import { cloudflareKvStore, type KVNamespaceLike } from 'cachette/adapters/cloudflare-kv';
import { memoryStore } from 'cachette/adapters/memory';
import { upstashStore } from 'cachette/adapters/upstash';
import { valkeyStore, type ValkeyStore } from 'cachette/adapters/valkey';
import type { Equal, Expect, IsAny } from './type-checks.js';

const valkey = valkeyStore<Redis>({ connection: 'redis://127.0.0.1:6379', clientOptions: { lazyConnect: true } });
export const client: Redis = valkey.client;
export type ValkeyChecks = [Expect<Equal<IsAny<typeof valkey.client>, false>>, Expect<Equal<typeof valkey extends ValkeyStore ? true : false, true>>];
// Bun's client exists only under Bun: on Node the store refuses a URL, so it is typed here, not opened.
export const onBun = hasBunRedisClient() ? bunRedisStore('redis://127.0.0.1:6379') : undefined;
export type BunRedisChecks = [Expect<Equal<IsAny<NonNullable<typeof onBun>['client']>, false>>, Expect<Equal<NonNullable<typeof onBun>['client'], BunRedisClient>>];
export const stores = [memoryStore({ maxEntries: 100 }), upstashStore({ url: 'https://example.upstash.io', token: 'token' }), cloudflareKvStore({ namespace: {} as KVNamespaceLike })];
