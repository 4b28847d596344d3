import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from '../../scripts/test/sequencer.ts';

/**
 * The package checks (`*.pack.ts`): the tarball is packed once (pack-setup.ts), the apps several
 * checks share are installed once (shared-apps.ts), and the checks that need versions of their
 * own install them. Run by scripts/test beside the Node suites.
 */
export default defineConfig({
  test: {
    include: ['test/package/*.pack.ts'],
    globalSetup: ['test/package/pack-setup.ts'],
    // Each file mostly waits on npm, tsc and the apps it runs, none on a clock: three at once
    // (vitest's default on two cores is one), the longest first (the git install, Next's build).
    maxWorkers: 3,
    sequence: { sequencer: SlowestFirstSequencer },
    // Bounds, not expectations: beside the Node suites on a shared host an install or a tsc run
    // takes minutes (the checks that spawn them give them up to 5-10).
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
