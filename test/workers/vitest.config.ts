import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

/**
 * The workerd suites: the same runner-neutral suites as on Node, run inside workerd by
 * @cloudflare/vitest-pool-workers against the stores a Worker can reach — memory, miniflare's
 * KV, and Upstash over loopback HTTP through the local bridge when scripts/test started one
 * (its URL and token arrive as UPSTASH_REDIS_REST_URL/_TOKEN and become bindings).
 */
// Offline machine and loopback-only tests: miniflare must not fetch Cloudflare's `cf` object.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';

const { UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN } = process.env;
const upstash: Record<string, string> = UPSTASH_REDIS_REST_URL && UPSTASH_REDIS_REST_TOKEN ? { UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN } : {};

export default defineConfig({
  plugins: [
    cloudflareTest({
      miniflare: {
        compatibilityDate: '2026-04-01',
        compatibilityFlags: ['nodejs_compat'],
        kvNamespaces: ['CACHETTE_KV'],
        bindings: { ...upstash, CACHETTE_REQUIRE_ALL: process.env.CI === 'true' || process.env.CACHETTE_REQUIRE_ALL === '1' ? '1' : '' },
      },
    }),
  ],
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/workers/**/*.test.ts'],
    // Miniflare's KV stores each key of a 1,000-key batch as its own write: 4–5 s on a quiet
    // machine, over 20 s when the two cores are shared with other suites.
    testTimeout: 60_000,
    hookTimeout: 20_000,
  },
});
