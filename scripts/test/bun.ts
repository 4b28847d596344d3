import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runWithJunit, type RuntimeRun } from '../../test/runtimes/junit.ts';

const DIR = 'test/runtimes/bun';

/**
 * Runs the shared suites under `bun test` (files `test/runtimes/bun/*.bun.ts`, named so that
 * vitest never picks them up) and counts its JUnit report, one row per top-level describe.
 */
export function runBun(): RuntimeRun {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.bun.ts'))
    .map((f) => `./${join(DIR, f)}`);
  return runWithJunit({
    runtime: 'bun',
    bin: 'node_modules/.bin/bun',
    // A path outside bun's default *.test.ts pattern must start with "./" to be run.
    args: (report) => ['test', '--timeout=20000', '--reporter=junit', `--reporter-outfile=${report}`, ...files],
    // Bun nests <testsuite> per file, then per describe: the first describe names the suite.
    suiteOf: (c) => c.suites[1] ?? c.name,
    timeoutMs: 4 * 60_000,
  });
}
