/**
 * Setup file of the `unit` vitest project (vitest.config.ts): the unit set runs with no server and
 * no other runtime, and a file that needs one fails loudly instead of passing by skipping.
 *
 * - The service variables are removed and CACHETTE_REQUIRE_ALL=1 is set, so `requireRedis()` and
 *   `requireCluster()` (test/support/redis-env.ts) throw rather than skip.
 * - Starting redis-server or another runtime's binary through node:child_process throws, naming
 *   the binary: such a file belongs to another project, which scripts/test/suites.ts should have
 *   put it in (fix the file so its imports say what it needs; see docs/testing.md).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';

/** Binaries a unit test may not start: the services and the other runtimes. */
const FORBIDDEN = ['redis-server', 'redis-cli', 'bun', 'deno', 'workerd', 'wrangler'];

for (const name of ['REDIS_URL', 'REDIS_SERVER_BIN', 'VALKEY_CLUSTER_NODES', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN']) delete process.env[name];
process.env.CACHETTE_REQUIRE_ALL = '1';

/** The forbidden binary `command` (with its arguments) would start, if any. */
export function forbiddenBinary(command: unknown, args: unknown): string | undefined {
  const words: string[] = [];
  if (typeof command === 'string') words.push(...command.split(/\s+/));
  if (Array.isArray(args)) for (const arg of args) if (typeof arg === 'string') words.push(...arg.split(/\s+/));
  // `sh -c "command -v redis-server"` and `node …/wrangler.js` name the binary in an argument.
  return FORBIDDEN.find((bin) => words.some((word) => basename(word).replace(/\.(js|cjs|mjs)$/, '') === bin));
}

type Spawner = (...args: unknown[]) => unknown;
for (const method of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork'] as const) {
  const original = childProcess[method] as unknown as Spawner;
  const guarded: Spawner = (...args) => {
    const bin = forbiddenBinary(args[0], args[1]);
    if (bin)
      throw new Error(
        `the unit set (npm run test:unit) starts no server and no other runtime, but this file runs ${bin}: import what it needs as docs/testing.md says, so that it runs in its own project`,
      );
    return original(...args);
  };
  (childProcess as unknown as Record<string, Spawner>)[method] = guarded;
}
// Named imports of node:child_process (`import { spawn } from …`) see the guarded functions too.
syncBuiltinESMExports();
