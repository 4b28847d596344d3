import { existsSync } from 'node:fs';
import type { RuntimeRun } from '../../test/runtimes/junit.ts';
import type { RunnerSelection } from './plan.ts';
import { runVitest, vitestSelection } from './vitest.ts';

/**
 * Runs test/workers/** inside workerd through @cloudflare/vitest-pool-workers, reusing the
 * vitest JSON reading of ./vitest.ts; only the runtime label changes.
 */
export async function runWorkerd(selection: RunnerSelection): Promise<RuntimeRun> {
  const bin = 'node_modules/.bin/workerd';
  if (!existsSync(bin)) return { results: [], problems: [`workerd: ${bin} is missing (npm install brings it with wrangler): the workerd suites did not run`] };
  const started = Date.now();
  const results = await runVitest(['--config', 'test/workers/vitest.config.ts', ...vitestSelection(selection)]);
  console.log(`[test] workerd finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { results: results.map((r) => ({ ...r, runtime: 'workerd' })), problems: [] };
}
