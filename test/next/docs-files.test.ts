/**
 * docs/next.md shows the two handler modules and the next.config of examples/next as they are:
 * Next loads those files itself, so they cannot run as snippets; next.test.ts builds the example
 * and serves it with them, and this keeps the page and the files from drifting apart.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const page = readFileSync(join(root, 'docs', 'next.md'), 'utf8');

describe('docs/next.md', () => {
  for (const file of ['use-cache-handler.mjs', 'cache-handler.mjs', 'next.config.mjs']) {
    it(`shows examples/next/${file} as it is`, () => {
      const source = readFileSync(join(root, 'examples', 'next', file), 'utf8');
      assert.ok(page.includes(`\`${file}\``), `docs/next.md does not name ${file}`);
      assert.ok(page.includes(`\`\`\`js\n${source}\`\`\`\n`), `docs/next.md's block for ${file} differs from examples/next/${file}`);
    });
  }
});
