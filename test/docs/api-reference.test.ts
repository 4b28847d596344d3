// docs/API.md cannot rot: it must be exactly what scripts/docs/api-reference.ts generates from
// the option types as they are now, and those types must document every option.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { readOptions, renderReference, SECTIONS, type OptionRow, type ReferenceSection } from '../../scripts/docs/api-reference.ts';

const root = join(import.meta.dirname, '../..');
let options: Map<ReferenceSection, OptionRow[]>;

// One compiler program for the file: building it is most of the cost.
beforeAll(() => {
  options = readOptions(root);
}, 60_000);

describe('docs/API.md', () => {
  it('is up to date with the option types (run `npm run docs` when this fails)', () => {
    assert.equal(readFileSync(join(root, 'docs', 'API.md'), 'utf8'), renderReference(root, options));
  });

  it('covers every call the issue names, and every option of each says what it does', () => {
    const titles = SECTIONS.map((s) => s.title);
    for (const title of [
      'createCache',
      'withCache and @cachedResponse',
      'Hono',
      'Express',
      'serve',
      'cache.wrap and @cached',
      'memoryStore',
      'valkeyStore',
      'upstashStore',
      'cloudflareKvStore',
      'sqliteStore',
      'OpenTelemetry',
    ])
      assert.ok(titles.includes(title), title);
    const undocumented: string[] = [];
    for (const [section, rows] of options) {
      assert.ok(rows.length > 0, `${section.type} has no options`);
      for (const row of rows) if (!row.meaning && row.defaultValue === '—') undocumented.push(`${section.type}.${row.name}`);
    }
    assert.deepEqual(undocumented, []);
  });

  it('is linked from README', () => {
    assert.match(readFileSync(join(root, 'README.md'), 'utf8'), /\]\(docs\/API\.md\)/);
  });
});
