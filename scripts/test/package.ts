import type { SuiteResult } from './summary.ts';
import { runVitest } from './vitest.ts';

/**
 * The package check (test/package/consumer.pack.ts): `npm pack`, installed into a fresh consumer
 * project, type-checked under nodenext and bundler, and run on Node. Its own step and its own
 * row: it builds the package and compiles, so it runs after the other Node suites rather than
 * beside them.
 */
export async function runPackageCheck(): Promise<SuiteResult[]> {
  const rows = await runVitest(['--config', 'test/package/vitest.config.ts']);
  return rows.map((row) => ({ ...row, runtime: 'package' }));
}
