/**
 * The slowest files start first (scripts/test/sequencer.ts): on a fresh clone vitest has no
 * durations to sort by, and a file of minutes started last would be the run's tail.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { SLOWEST, slowestFirst } from './sequencer.ts';

const root = join(import.meta.dirname, '../..');

describe('the order vitest starts files in', () => {
  it('puts the slowest files first, in their order, and keeps the order of the others', () => {
    const files = ['test/a.test.ts', 'test/docs/snippets.test.ts', 'test/b.test.ts', 'test/package/from-git.pack.ts', 'test/next/next.test.ts'];
    assert.deepEqual(
      slowestFirst(files, (file) => file),
      ['test/package/from-git.pack.ts', 'test/docs/snippets.test.ts', 'test/next/next.test.ts', 'test/a.test.ts', 'test/b.test.ts'],
    );
  });

  it('names files that exist', () => {
    assert.deepEqual(
      SLOWEST.filter((file) => !existsSync(join(root, file))),
      [],
    );
  });
});
