/**
 * The next.config.mjs docs/next.md shows (examples/next's own: test/next/docs-files.test.ts keeps
 * them equal) loads in the installed Next without a warning: with `cacheComponents` and no
 * `partialPrefetching`, Next 16.4 warned on every build and start. Next's own config loader reads
 * it, as `next build` and `next start` do, and what it prints is collected.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

interface NextConfigModule {
  default: (phase: string, dir: string, options: { silent: boolean }) => Promise<{ cacheComponents?: boolean; partialPrefetching?: boolean }>;
}

describe("docs/next.md's next.config.mjs", () => {
  it('loads in Next without a warning, with cacheComponents and partialPrefetching', async () => {
    const { default: loadConfig } = require('next/dist/server/config.js') as NextConfigModule;
    const { PHASE_PRODUCTION_BUILD } = require('next/dist/shared/lib/constants.js') as { PHASE_PRODUCTION_BUILD: string };
    const printed: string[] = [];
    const saved = { warn: console.warn, log: console.log, error: console.error };
    // Next's logger writes through the console: what it says while loading the config is what a build would print.
    console.warn = console.log = console.error = (...parts: unknown[]) => void printed.push(parts.join(' '));
    let config: Awaited<ReturnType<NextConfigModule['default']>>;
    try {
      config = await loadConfig(PHASE_PRODUCTION_BUILD, join(root, 'examples', 'next'), { silent: false });
    } finally {
      Object.assign(console, saved);
    }
    assert.equal(config.cacheComponents, true);
    assert.equal(config.partialPrefetching, true);
    // "✓ Running next.config.mjs took … ms" is all Next may say.
    assert.deepEqual(
      printed.filter((line) => !/^\S* ?Running next\.config\.mjs took \d+ms$/.test(line.trim())),
      [],
    );
  }, 60_000);
});
