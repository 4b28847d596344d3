/**
 * The unit set's guard (unit-guard.ts): a file that needs Redis or runs another runtime fails in
 * the unit set instead of passing by skipping. This file names the runtimes' binaries, so it
 * runs in the `runtime` project itself (it starts none of them).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { forbiddenBinary } from './unit-guard.ts';

const root = join(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'cachette-guard-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the unit guard', () => {
  it('names the service or runtime a command would start', () => {
    assert.equal(forbiddenBinary('sh', ['-c', 'command -v redis-server']), 'redis-server');
    assert.equal(forbiddenBinary('/usr/bin/redis-server', ['--port', '1']), 'redis-server');
    assert.equal(forbiddenBinary(join(root, 'node_modules/.bin/bun'), ['test']), 'bun');
    assert.equal(forbiddenBinary(process.execPath, [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'dev']), 'wrangler');
    assert.equal(forbiddenBinary(process.execPath, ['--import', 'tsx', 'x.ts']), undefined);
    assert.equal(forbiddenBinary('npm', ['run', 'lint']), undefined);
  });

  it('fails a file of the unit set that needs Redis or runs another runtime, instead of skipping it', () => {
    const repo = join(scratch, 'guarded');
    mkdirSync(repo);
    for (const [name, source] of Object.entries({
      'needs-redis.test.ts': `import { it } from 'vitest';\nimport { requireRedis } from ${JSON.stringify(join(root, 'test/support/redis-env.ts'))};\nit.runIf(requireRedis())('talks to Valkey', () => {});\n`,
      'runs-bun.test.ts': `import { spawnSync } from 'node:child_process';\nimport { it } from 'vitest';\nit('runs bun', () => { spawnSync(${JSON.stringify(join(root, 'node_modules/.bin/bun'))}, ['--version']); });\n`,
      'vitest.config.ts': `export default { test: { include: ['*.test.ts'], setupFiles: [${JSON.stringify(join(root, 'scripts/test/unit-guard.ts'))}] } };\n`,
    }))
      writeFileSync(join(repo, name), source);
    symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'), 'dir');
    // REDIS_URL set, as in a shell that exports it: the guard removes it for the unit set.
    const run = spawnSync(join(root, 'node_modules/.bin/vitest'), ['run', '--root', repo, '--reporter=verbose'], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', CI: '' },
      timeout: 60_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 1, output);
    assert.match(output, /REDIS_URL is not set and CI forbids skipping/);
    assert.match(output, /the unit set \(npm run test:unit\) starts no server and no other runtime, but this file runs bun/);
    assert.match(output, /2 failed/);
  }, 60_000);
});
