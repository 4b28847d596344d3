/**
 * Issue 33, item 11: the tests that make a store fail on purpose (a server stopped mid-test, a
 * full server, a paused one, a store that refuses) once printed the cache's warnings between
 * passing tests, 46 `stderr |` blocks in one `npm test`. They now hand the cache a logger that
 * keeps the lines (test/support/captured-logger.ts): run under vitest's default reporter, as
 * `npm test` runs them, they print no console block at all, and what they do print (none of it)
 * is not hidden by any setting.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { requireRedis } from '../../test/support/redis-env.ts';

const root = join(import.meta.dirname, '../..');

/** The files and the tests in them that fail a store on purpose. */
const NOISY = {
  files: ['test/cache/failure.test.ts', 'test/cache/path.test.ts', 'test/cache/api.test.ts', 'test/otel/instrument.test.ts'],
  tests: [
    'goes down once, and recovers',
    'reads stay up while writes go down',
    'strict mode throws instead',
    'throws a CircuitOpenError at a strict caller',
    'a store-side failure',
    'folds concurrent gets of one tick',
    'counts store errors by source and operation',
  ],
};

describe.runIf(requireRedis())('tests that fail a store on purpose', () => {
  it('print no console block between their results', () => {
    const pattern = NOISY.tests.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    // The test's own redis-server (REDIS_URL) is inherited: the nested run starts nothing.
    const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '-t', pattern, ...NOISY.files], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 240_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(output, /Tests\s+\d+ passed/, output);
    // Every test named above ran.
    assert.ok(Number(/Tests\s+(\d+) passed/.exec(output)?.[1]) >= NOISY.tests.length, output);
    assert.deepEqual(output.match(/^(stderr|stdout) \| .*$/gm) ?? [], [], output);
  }, 300_000);
});
