import { defineConfig } from 'vitest/config';

/** The package check (`consumer.pack.ts`): one file, run by scripts/test after the Node suites. */
export default defineConfig({
  test: {
    include: ['test/package/*.pack.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
