import type { RunnerSelection } from './plan.ts';
import type { SuiteResult } from './summary.ts';
import { runVitest, vitestSelection } from './vitest.ts';

/**
 * The package check (test/package/*.pack.ts): `npm pack`, installed into a fresh consumer
 * project, type-checked under nodenext and bundler, and run on Node; what ships, and the links
 * of README and docs/ inside the tarball. Its own vitest run and its own rows, beside the Node
 * suites (scripts/test/lanes.ts): it waits on npm and compiles, they wait on sockets and timers.
 */
export async function runPackageCheck(selection: RunnerSelection): Promise<SuiteResult[]> {
  const rows = await runVitest(['--config', 'test/package/vitest.config.ts', ...vitestSelection(selection)]);
  return rows.map((row) => ({ ...row, runtime: 'package' }));
}
