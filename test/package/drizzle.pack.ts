/**
 * cachette/drizzle at both ends of its drizzle-orm peer range: the packed tarball installed into
 * a fresh app with drizzle-orm 0.44.0 (the first release with a cache; the checkout's
 * `drizzle-orm-lowest` alias) and with 1.0's newest release candidate (`drizzle-orm-next`), each
 * type-checked (a CachetteCache must be the cache that version's `drizzle({ client, cache })`
 * takes) and run on PGlite: a cached select, a fenced update, a fenced transaction. The
 * release in between (the checkout's drizzle-orm) is the one every other test runs on.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { installPacked } from '../support/packed-package.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const versionOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

const CHECK = `import { PGlite } from '@electric-sql/pglite';
import { memoryStore } from 'cachette/adapters/memory';
import { cachetteCache, withFencedWrites } from 'cachette/drizzle';
import { eq } from 'drizzle-orm';
import { integer, pgTable } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';

const items = pgTable('items', { id: integer('id').primaryKey(), version: integer('version').notNull() });
const client = new PGlite();
await client.exec('create table items (id integer primary key, version integer not null); insert into items values (1, 0)');
const cache = cachetteCache({ store: memoryStore(), global: true });
const db = withFencedWrites(drizzle({ client, cache }));
const read = async (): Promise<number | undefined> => (await db.select({ version: items.version }).from(items).where(eq(items.id, 1)))[0]?.version;
const seen = [await read(), await read()];
await db.update(items).set({ version: 1 }).where(eq(items.id, 1));
seen.push(await read());
await db.transaction(async (tx) => {
  await tx.update(items).set({ version: 2 }).where(eq(items.id, 1));
});
seen.push(await read());
console.log(\`seen \${seen.join(' ')}, \${cache.cache.stats().hits} hit\`);
await cache.close();
await client.close();
`;

const VERSIONS = [
  { label: 'the lowest supported drizzle-orm', from: 'drizzle-orm-lowest', expected: '0.44.0' },
  { label: 'the newest supported drizzle-orm', from: 'drizzle-orm-next', expected: '1.0.0-rc.5' },
];

describe.each(VERSIONS)('cachette/drizzle with $label ($expected)', ({ from, expected }) => {
  let work: string;
  let app: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'cachette-drizzle-'));
    app = join(work, 'app');
    installPacked(inject('packed').path, app, root, ['cbor-x', 'fflate', '@electric-sql/pglite', { name: 'drizzle-orm', from }]);
    mkdirSync(join(app, 'src'));
    writeFileSync(join(app, 'src', 'check.ts'), CHECK);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', lib: ['ES2023', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, types: [] },
        include: ['src'],
      }),
    );
  }, 240_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs that version', () => {
    assert.equal(versionOf(realpathSync(join(app, 'node_modules', 'drizzle-orm'))), expected);
  });

  it('type-checks: a CachetteCache is the cache that version takes', () => {
    const run = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, 'tsconfig.json'), '--pretty', 'false'], { cwd: app, encoding: 'utf8' });
    assert.equal(`${run.stdout}${run.stderr}`.trim(), '');
  }, 360_000);

  it('caches a select and fences an update and a transaction', () => {
    const run = spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(app, 'src', 'check.ts')], { cwd: app, encoding: 'utf8', timeout: 300_000 });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.equal(run.stdout.trim(), 'seen 0 0 1 2, 1 hit');
  }, 360_000);
});
