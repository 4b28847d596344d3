/**
 * Issue 27, item 3, as a figure: what one request's varying field costs to read when it holds a
 * run of spaces that reaches no comma (the attack sent ~16 KB of them in `Origin`). The folding
 * before the fix (`\s*,\s*` over the whole value, kept here as the baseline) against this tree's
 * `varyValues`, at 1 KB and 16 KB, interleaved round by round. This tree reads a value over
 * MAX_VARY_VALUE_LENGTH (4 KB) not at all, so its 16 KB row is measured under the bound too
 * (4 KB), where it folds the value in full. In-process, no store.
 *
 *   npx tsx bench/vary-normalise.ts [--quick]
 */
import { loadavg } from 'node:os';
import { MAX_VARY_VALUE_LENGTH, varyValues } from '../src/http/rules/vary.ts';
import { gitCommit } from './support/environment.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;

/** The whitespace folding of a varying field before the fix. */
const before = (value: string): string =>
  value
    .replace(/\s*,\s*/g, ',')
    .replace(/\s+/g, ' ')
    .trim();

/** A value of `length` characters: a word, then spaces up to the end, then a word (no comma). */
const attack = (length: number): string => `a${' '.repeat(length - 2)}b`;

/** Milliseconds per call of `run` over `value`, for enough calls to take ~50 ms at least. */
function perCall(run: (value: string) => unknown, value: string): number {
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < 50 || calls < 3) {
    run(value);
    calls++;
    elapsed = performance.now() - start;
  }
  return elapsed / calls;
}

const after = (value: string) => varyValues(['origin'], new Headers({ origin: value }));
const rows: Array<{ label: string; run: (value: string) => unknown; length: number }> = [
  { label: 'before, 1 KB', run: before, length: 1024 },
  { label: 'before, 16 KB', run: before, length: 16 * 1024 },
  { label: 'this tree, 1 KB', run: after, length: 1024 },
  { label: `this tree, ${MAX_VARY_VALUE_LENGTH / 1024} KB (the bound: read in full)`, run: after, length: MAX_VARY_VALUE_LENGTH },
  { label: 'this tree, 16 KB (over the bound: not read)', run: after, length: 16 * 1024 },
];
const samples = rows.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, row] of rows.entries()) samples[i]!.push(perCall(row.run, attack(row.length)));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const medians = samples.map(median);
const load = loadavg().map((l) => l.toFixed(2));
console.log(`${new Date().toISOString()}, commit ${gitCommit()}, node ${process.version}, load ${load.join(' ')}`);
console.log(`${ROUNDS} interleaved rounds, median ms per call:`);
for (const [i, row] of rows.entries()) console.log(`  ${row.label.padEnd(48)} ${medians[i]!.toFixed(4)} ms`);
console.log(`  16 KB / 1 KB, before: ${(medians[1]! / medians[0]!).toFixed(1)}× (linear would be 16×)`);
console.log(`  4 KB / 1 KB, this tree: ${(medians[3]! / medians[2]!).toFixed(1)}×`);
console.log(`  16 KB before / 16 KB this tree: ${(medians[1]! / medians[4]!).toFixed(0)}×`);
