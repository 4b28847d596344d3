import { spawnSync } from 'node:child_process';
import type { SuiteResult } from './summary.ts';

/**
 * `npm run lint` (Biome: lint rules, no writes) as a row of the summary: a lint error fails
 * `npm test`, and therefore CI, like a failed test. Its output is shown only when it fails.
 */
export function runLint(): SuiteResult[] {
  const run = spawnSync('npm', ['run', '--silent', 'lint'], { encoding: 'utf8' });
  const ok = run.status === 0;
  if (!ok) console.log(`[test] npm run lint failed:\n${run.stdout}${run.stderr}`);
  return [{ runtime: 'lint', suite: 'biome check', passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 }];
}
