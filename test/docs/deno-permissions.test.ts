/**
 * What README says Deno's permissions are for, checked on Deno: the README's own server snippet
 * reads `PORT` from the environment (so `--allow-env` is not only for picking the store, as the
 * page once said), and a server with a fixed port and `cache: { store }` runs on `--allow-net`
 * alone. Run from the repository with an import map to the sources, as snippets.test.ts runs
 * Deno snippets.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { entrySources } from './entry-sources.ts';
import { pageSnippets } from './markdown-snippets.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const deno = join(root, 'node_modules/.bin/deno');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
let work: string;

/** Runs `source` on Deno with `flags` only; resolves its exit code and output. */
async function onDeno(name: string, source: string, flags: string[]): Promise<{ code: number; output: string }> {
  const file = join(work, `${name}.ts`);
  writeFileSync(file, source);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(PORT|VALKEY_URL|REDIS_URL|UPSTASH_|CACHETTE_)/.test(key)));
  try {
    const { stdout, stderr } = await run(deno, ['run', ...flags, '--no-check', '--import-map', join(work, 'import_map.json'), file], { cwd: root, env: { ...env, NO_COLOR: '1' }, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe("README's Deno permissions", () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'cachette-deno-permissions-'));
    // As snippets.test.ts: an app's package.json and node_modules beside the file, so the sources' own imports (fflate, cbor-x) resolve.
    symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'deno-permissions', private: true, type: 'module' }));
    writeFileSync(join(work, 'import_map.json'), JSON.stringify({ imports: Object.fromEntries(entrySources(root)) }));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('says --allow-env is for PORT and for the store, and the snippet does read PORT', async () => {
    assert.match(readme, /`--allow-env` is for `process\.env\.PORT` and for the store/);
    const snippet = pageSnippets('README.md', readme).find((s) => s.runtime === 'deno');
    assert.ok(snippet, 'README has a Deno snippet');
    const result = await onDeno('readme', snippet.source, ['--allow-net']);
    assert.notEqual(result.code, 0, result.output);
    assert.match(result.output, /Requires env access to "PORT"/);
  }, 90_000);

  it('serves with --allow-net alone given a fixed port and cache: { store }', async () => {
    assert.match(readme, /With a fixed port and `cache: \{ store \}`,\s+`--allow-net` is enough/);
    const source = `import { memoryStore } from 'cachette/adapters/memory';
import { serve } from 'cachette/deno';

const server = await serve(() => new Response('hello'), { port: 0, cache: { ttl: '30s', store: memoryStore() } });
await (await fetch(server.url)).text();
const hit = await fetch(server.url);
console.log(await hit.text(), hit.headers.get('cache-status'));
await server.close();
`;
    const result = await onDeno('fixed-port', source, ['--allow-net']);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /^hello cachette; hit; ttl=\d+$/m);
  }, 90_000);
});
