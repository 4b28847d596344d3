/**
 * How long one query's result stays fresh, from the `config` of `$withCache({ config })`:
 * Drizzle's `CacheConfig` speaks Redis `SET` options (`ex`/`px` relative, `exat`/`pxat`
 * absolute). `keepTtl` and `hexOptions` are Upstash storage details with no meaning here.
 */
import type { CacheConfig } from 'drizzle-orm/cache/core/types';

/**
 * The query's time to live in ms, or undefined when its config sets none (the cache's `ttl`
 * applies). Zero or less: already expired (the query runs and is not stored). A value that is
 * not a finite number is the caller's mistake, a TypeError.
 */
export function queryTtlMs(config: CacheConfig | undefined, nowMs: number): number | undefined {
  if (config === undefined || config === null) return undefined;
  if (config.px !== undefined) return finite(config.px, 'px');
  if (config.ex !== undefined) return finite(config.ex, 'ex') * 1000;
  if (config.pxat !== undefined) return finite(config.pxat, 'pxat') - nowMs;
  if (config.exat !== undefined) return finite(config.exat, 'exat') * 1000 - nowMs;
  return undefined;
}

function finite(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`cachette/drizzle: $withCache({ config: { ${name} } }) must be a finite number, got ${String(value)}`);
  return value;
}
