import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module `entry` can load, static or dynamic, with the bare specifiers each file names. */
function graph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const specs = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
    seen.set(
      file,
      specs.filter((s) => !s.startsWith('.')),
    );
    for (const s of specs) if (s.startsWith('.')) visit(resolve(dirname(file), s));
  };
  visit(resolve(root, entry));
  return seen;
}

// A Worker bundle must never pull node:net or a TCP client: cachette/workers reaches stores
// through bindings (KV) only, and cachette/workers/upstash over fetch (Upstash) too.
describe('cachette/workers import graph', () => {
  const TCP_OR_FILES = ['iovalkey', 'ioredis', 'redis', 'better-sqlite3', 'bun:sqlite'];
  const check = (entry: string, reaches: string[], never: string[]) => {
    const modules = graph(entry);
    const offenders = [...modules].flatMap(([file, bare]) => bare.filter((s) => s.startsWith('node:') || TCP_OR_FILES.includes(s)).map((s) => `${relative(root, file)} imports ${s}`));
    assert.deepEqual(offenders, []);
    // The walk really reached the stores (guards against a scan that checks nothing).
    const files = [...modules.keys()].map((f) => relative(root, f));
    for (const f of reaches) assert.ok(files.includes(f), `${entry} reaches ${f}`);
    // Nor the embedded SQLite store: an edge bundle must never see a SQLite binding.
    for (const folder of never) assert.ok(!files.some((f) => f.startsWith(folder)), `${entry} reaches ${folder}`);
  };

  it('cachette/workers holds no node: module, no TCP Redis client and no Upstash client, static or dynamic', () => {
    check('runtimes/workers/index.ts', ['adapters/cloudflare-kv/index.ts', 'src/http/index.ts'], ['adapters/sqlite/', 'adapters/upstash/']);
  });

  it('cachette/workers/upstash adds the Upstash store and nothing over TCP', () => {
    check('runtimes/workers/upstash/index.ts', ['adapters/cloudflare-kv/index.ts', 'adapters/upstash/index.ts', 'src/http/index.ts'], ['adapters/sqlite/']);
  });
});
