/**
 * `npm test` runs the Node suites and the package checks at once, and Bun, Deno and workerd once
 * the first of them ends (scripts/test/lanes.ts): a failure in any lane is still a failed row, a
 * lane that throws stops no other, and the rows keep the order the lanes are given in whichever
 * order they finish.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { runLanes } from './lanes.ts';
import type { SuiteResult } from './summary.ts';

const row = (runtime: string, failed = 0): SuiteResult => ({ runtime, suite: `${runtime}.test.ts`, passed: 1, failed, skipped: 0 });

/** Resolves after `ms`, for lanes that end in a chosen order. */
const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the lanes of npm test', () => {
  it('keeps the given order of rows whichever lane ends first, and starts the last lane once the first of the others ended', async () => {
    const ended: string[] = [];
    /** A lane that waits `ms`, then notes that it ended (with what had ended before it) and returns one row. */
    const lane = (runtime: string, ms: number, failed = 0) => ({
      runtime,
      run: async () => {
        await after(ms);
        ended.push(runtime === 'bun' ? `bun after ${ended.join(', ')}` : runtime);
        return [row(runtime, failed)];
      },
    });
    const rows = await runLanes([lane('node', 60, 1), lane('package', 0)], lane('bun', 0));
    assert.deepEqual(ended, ['package', 'bun after package', 'node']);
    assert.deepEqual(
      rows.map((r) => [r.runtime, r.failed]),
      [
        ['node', 1],
        ['package', 0],
        ['bun', 0],
      ],
    );
  });

  it('reports a lane that throws as a failed row naming why, and still runs and reports the others', async () => {
    const rows = await runLanes(
      [
        {
          runtime: 'node',
          run: async () => {
            throw new Error('spawn npx ENOENT');
          },
        },
        { runtime: 'package', run: async () => [row('package')] },
      ],
      { runtime: 'bun, deno and workerd', run: async () => [row('bun')] },
    );
    assert.deepEqual(
      rows.map((r) => [r.runtime, r.failed, r.failures?.[0]?.reason]),
      [
        ['node', 1, 'spawn npx ENOENT'],
        ['package', 0, undefined],
        ['bun', 0, undefined],
      ],
    );
  });

  it('runs the last lane at once when no other lane was selected', async () => {
    assert.deepEqual(await runLanes([], { runtime: 'deno', run: async () => [row('deno')] }), [row('deno')]);
  });
});
