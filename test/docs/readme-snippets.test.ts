// README snippets run as written (issue 13: "each README snippet runs as written and exits"):
// each is cut out of README.md, saved as a module beside a link to this checkout's
// node_modules, and run with tsx, which maps `cachette/*` to the sources through tsconfig
// paths. The only edit: the Quickstart's Valkey URL becomes the test server's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

const root = join(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
let work: string;

/** The ```ts blocks of the README section under `heading` (up to the next heading of its level or above). */
function snippets(heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.notEqual(start, -1, `README has no "${heading}"`);
  const level = heading.indexOf(' ');
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Runs `source` as an ES module with tsx; resolves its exit status and output. */
function run(name: string, source: string): { status: number | null; signal: string | null; output: string } {
  const file = join(work, `${name}.mts`);
  writeFileSync(file, source);
  const result = spawnSync(join(root, 'node_modules', '.bin', 'tsx'), ['--tsconfig', join(root, 'tsconfig.json'), file], { cwd: work, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, signal: result.signal, output: `${result.stdout}${result.stderr}` };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cachette-readme-'));
  // Bare imports (@opentelemetry/…) resolve from the snippet's folder upwards.
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('README snippets, as written', () => {
  it.runIf(requireRedis())(
    'the Quickstart caches a lookup on Valkey, prints it, and exits',
    () => {
      const [quickstart] = snippets('## Quickstart');
      assert.match(quickstart!, /'redis:\/\/127\.0\.0\.1:6379'/);
      const result = run('quickstart', quickstart!.replace('redis://127.0.0.1:6379', redisUrl!));
      assert.equal(result.signal, null, `it did not exit within 60 s:\n${result.output}`);
      assert.equal(result.status, 0, result.output);
      assert.match(result.output, /\{ id: '42', name: 'Ada' \}/);
    },
    90_000,
  );

  it('cachette/otel prints its metrics through the SDK, and exits', () => {
    const [otel] = snippets('### Metrics and traces (`cachette/otel`)');
    const result = run('otel', otel!);
    assert.equal(result.signal, null, `it did not exit within 60 s:\n${result.output}`);
    assert.equal(result.status, 0, result.output);
    for (const name of ['cachette.lookups', 'cachette.lookup.duration', 'cachette.fills', 'cachette.fill.duration']) assert.ok(result.output.includes(name), `${name} in\n${result.output}`);
  }, 90_000);
});
