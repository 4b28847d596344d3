import { defineConfig } from 'vitest/config';
import { standardDecorators } from './test/support/decorators-plugin.ts';

export default defineConfig({
  plugins: [standardDecorators(/\/test\/decorators\/[^/]+-suite\.ts$/)],
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'adapters/**/*.test.ts'],
    exclude: ['test/workers/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The suites share one redis-server; files use distinct key prefixes, so they may run in parallel.
    fileParallelism: true,
  },
});
