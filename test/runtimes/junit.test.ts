import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { countBySuite, parseJunit, runWithJunit } from './junit.ts';

// Shapes as bun 1.4 and deno 2.9 write them (trimmed), so the counts npm test prints are read, not guessed.
const BUN = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="3" failures="1" skipped="1">
  <testsuite name="./a.bun.ts" file="./a.bun.ts" tests="3">
    <testsuite name="store contract: memory" tests="3">
      <testcase name="round-trips" classname="store contract: memory" time="0.1" />
      <testcase name="expires &gt; TTL" classname="store contract: memory" time="0.1">
        <failure type="AssertionError" message="x &lt; y" />
      </testcase>
      <testcase name="later" classname="store contract: memory"><skipped /></testcase>
    </testsuite>
  </testsuite>
</testsuites>`;

const DENO = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="deno test" tests="2" failures="1" errors="0" time="0.014">
    <testsuite name="a.deno.ts" tests="2" disabled="0" errors="0" failures="1">
        <testcase name="store contract: valkey &gt; get" classname="a.deno.ts" time="0.005" line="6" col="6">
        </testcase>
        <testcase name="store contract: valkey &gt; incr" classname="a.deno.ts" time="0.001" line="7" col="6">
            <failure message="Uncaught Error: x">Error: x &lt;tag&gt;</failure>
        </testcase>
    </testsuite>
</testsuites>`;

describe('JUnit reports', () => {
  it('reads bun nesting, statuses and entities', () => {
    const cases = parseJunit(BUN);
    assert.deepEqual(
      cases.map((c) => [c.name, c.status, c.suites]),
      [
        ['round-trips', 'passed', ['./a.bun.ts', 'store contract: memory']],
        ['expires > TTL', 'failed', ['./a.bun.ts', 'store contract: memory']],
        ['later', 'skipped', ['./a.bun.ts', 'store contract: memory']],
      ],
    );
    assert.deepEqual(
      countBySuite(cases, 'bun', (c) => c.suites[1]!),
      [{ runtime: 'bun', suite: 'store contract: memory', passed: 1, failed: 1, skipped: 1, failures: [{ file: './a.bun.ts', test: 'store contract: memory > expires > TTL' }] }],
    );
  });

  it('reads deno flat cases named "describe > it"', () => {
    const rows = countBySuite(parseJunit(DENO), 'deno', (c) => c.name.split(' > ')[0]!);
    assert.deepEqual(rows, [{ runtime: 'deno', suite: 'store contract: valkey', passed: 1, failed: 1, skipped: 0, failures: [{ file: 'a.deno.ts', test: 'store contract: valkey > incr' }] }]);
  });

  it('finds nothing in something that is not a report', () => {
    assert.deepEqual(parseJunit(''), []);
    assert.deepEqual(parseJunit('<html><body>oops</body></html>'), []);
  });

  it('a missing runtime binary is a NOT RUN problem, not an empty success', () => {
    const run = runWithJunit({ runtime: 'nowhere', bin: '/nonexistent/bin/nowhere', args: () => [], suiteOf: (c) => c.name, timeoutMs: 1000 });
    assert.deepEqual(run.results, []);
    assert.deepEqual(run.problems, ['nowhere: /nonexistent/bin/nowhere is missing (npm install brings it): the nowhere suites did not run']);
  });

  it('a run that writes no report counts as a failure', () => {
    const run = runWithJunit({ runtime: 'silent', bin: process.execPath, args: () => ['-e', ''], suiteOf: (c) => c.name, timeoutMs: 10_000 });
    assert.deepEqual(run.results, [{ runtime: 'silent', suite: '(no JUnit report)', passed: 0, failed: 1, skipped: 0 }]);
  });
});
