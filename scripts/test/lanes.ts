import type { SuiteResult } from './summary.ts';

/** A runner of `npm test` that may run beside others: the runtime its rows are under, and how to run it. */
export interface Lane {
  /** The summary's runtime column for a row that says the lane itself failed. */
  runtime: string;
  run: () => Promise<SuiteResult[]>;
}

/** The lane's rows; a lane that throws is one failed row naming why, so its failure is reported and no other lane stops. */
async function rowsOf(lane: Lane): Promise<SuiteResult[]> {
  try {
    return await lane.run();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [{ runtime: lane.runtime, suite: '(the runner itself failed)', passed: 0, failed: 1, skipped: 0, failures: [{ test: '(the runner itself failed)', reason }] }];
  }
}

/**
 * Runs every lane of `together` at once and `then` as soon as the first of them ends (at once
 * when there is none): the Node suites wait on sockets and timers and the package checks on npm,
 * so on two cores they overlap well, and whichever ends first leaves its core to the other
 * runtimes. Resolves the rows in the order the lanes are given, `then`'s last, whatever order
 * they finished in, so the summary table reads the same on every run.
 */
export async function runLanes(together: readonly Lane[], then: Lane): Promise<SuiteResult[]> {
  const running = together.map(rowsOf);
  if (running.length > 0) await Promise.race(running);
  const last = await rowsOf(then);
  return [...(await Promise.all(running)).flat(), ...last];
}
