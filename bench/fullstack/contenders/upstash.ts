import { Redis } from '@upstash/redis/cloudflare';
import type { Contender } from '../../contenders/types.ts';

/**
 * `@upstash/redis` used directly, as a Worker would without a cache library: the SDK's own
 * JSON serialization, one HTTP request per call. Auto-pipelining is off for the reason
 * cachette/workers turns it off: requests of one isolate must not share a fetch.
 */
export function upstashRawContender(url: string, token: string): Contender {
  const redis = new Redis({ url, token, enableAutoPipelining: false, enableTelemetry: false });
  return {
    get: async (key) => (await redis.get(key)) ?? undefined,
    set: async (key, value) => void (await redis.set(key, value)),
    getMany: async (keys) => (await redis.mget(...keys)).map((v) => v ?? undefined),
    setMany: async (entries) => void (await redis.mset(Object.fromEntries(entries))),
    incr: (key) => redis.incr(key),
    delete: async (key) => void (await redis.del(key)),
    close: async () => undefined,
  };
}
