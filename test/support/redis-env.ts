/**
 * The redis-server the tests talk to. Under CI (CI=true) or CACHETTE_REQUIRE_ALL=1 a missing
 * server fails the suite; elsewhere the suite is skipped and scripts/test.ts says so loudly.
 */
export const redisUrl: string | undefined = process.env.REDIS_URL || undefined;

/** True when tests may not be skipped for lack of a service. */
export const mustRunAll = process.env.CI === 'true' || process.env.CACHETTE_REQUIRE_ALL === '1';

/** Throws when a required service is missing under CI; returns whether it is present. */
export function requireRedis(): boolean {
  if (redisUrl) return true;
  if (mustRunAll) throw new Error('REDIS_URL is not set and CI forbids skipping the Valkey suites');
  return false;
}
