/// <reference types="@cloudflare/vitest-pool-workers/types" />
// Bindings test/workers/vitest.config.ts gives the workerd suites. The module flavour of
// workers-types keeps Cloudflare's globals out of the rest of the repo's type check.
import type { KVNamespace } from '@cloudflare/workers-types/index.ts';

declare global {
  namespace Cloudflare {
    interface Env {
      CACHETTE_KV: KVNamespace;
      UPSTASH_REDIS_REST_URL?: string;
      UPSTASH_REDIS_REST_TOKEN?: string;
      CACHETTE_REQUIRE_ALL: string;
    }
  }
}
