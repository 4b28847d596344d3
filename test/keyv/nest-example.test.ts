/**
 * Issue 30, item 1: examples/nest-cache-manager runs, as its README says (tsx on main.ts), over a
 * real redis-server: Nest's CACHE_MANAGER computes the report once and serves it from cachette,
 * and the entry is in cachette's key space under the Keyv namespace.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

describe.runIf(requireRedis())('examples/nest-cache-manager', () => {
  it('serves the second read from cachette, on Valkey', async () => {
    const { stdout } = await run(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'examples', 'nest-cache-manager', 'main.ts')], {
      cwd: root,
      env: { ...process.env, REDIS_URL: redisUrl! },
      timeout: 90_000,
    });
    assert.equal(stdout.trim(), 'report 42 computed 1, served again computed 1');
    const cache = createCache({ store: valkeyStore(redisUrl!) });
    assert.ok(await cache.has('nest-example:report:42'), 'the entry is in cachette’s key space');
    await cache.delete('nest-example:report:42');
    await cache.close();
  }, 120_000);
});
