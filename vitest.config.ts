import { defineConfig } from 'vitest/config';
import { groupSuites, nodeTestFiles } from './scripts/test/suites.ts';
import { standardDecorators } from './test/support/decorators-plugin.ts';

const root = import.meta.dirname;

/**
 * One project per set of needs, read from the files themselves (scripts/test/suites.ts): `unit`
 * needs no server and no other runtime (`npm run test:unit`); `redis`, `cluster`,
 * `redis+cluster`, … start what their name says, through the global setup, and only when one of
 * their files is selected. The unit project's setup file makes a file that needs a service fail.
 */
const projects = groupSuites(root, nodeTestFiles(root)).map((group) => ({
  extends: true as const,
  test: {
    name: group.name,
    include: group.files,
    ...(group.needs.length === 0 ? { setupFiles: ['scripts/test/unit-guard.ts'] } : { globalSetup: ['test/support/global-setup.ts'] }),
  },
}));

export default defineConfig({
  plugins: [standardDecorators(/\/test\/decorators\/[^/]+-suite\.ts$/)],
  test: {
    exclude: ['test/workers/**', 'test/package/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The suites share one redis-server; files use distinct key prefixes, so they may run in parallel.
    // A file that changes the server for every client (CLIENT PAUSE, maxmemory, INFO counters)
    // starts a server of its own. The worker count stays vitest's default (cores − 1: one file at
    // a time on two cores): two or three at once failed timing-bound cases (the coherent L1's
    // fault suite, a lease held by a killed process, stale-while-revalidate windows) under load.
    fileParallelism: true,
    projects,
  },
});
