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
    seen.set(file, specs.filter((s) => !s.startsWith('.')));
    for (const s of specs) if (s.startsWith('.')) visit(resolve(dirname(file), s));
  };
  visit(resolve(root, entry));
  return seen;
}

// A Worker bundle must never pull node:net or a TCP client: cachette/workers reaches stores
// over fetch (Upstash) or bindings (KV) only.
describe('cachette/workers import graph', () => {
  it('holds no node: module and no TCP Redis client, static or dynamic', () => {
    const modules = graph('runtimes/workers/index.ts');
    const offenders = [...modules].flatMap(([file, bare]) =>
      bare.filter((s) => s.startsWith('node:') || ['iovalkey', 'ioredis', 'redis', 'better-sqlite3', 'bun:sqlite'].includes(s)).map((s) => `${relative(root, file)} imports ${s}`),
    );
    assert.deepEqual(offenders, []);
    // The walk really reached the stores (guards against a scan that checks nothing).
    const files = [...modules.keys()].map((f) => relative(root, f));
    for (const f of ['adapters/cloudflare-kv/index.ts', 'adapters/upstash/index.ts', 'src/http/index.ts']) assert.ok(files.includes(f), f);
    // Nor the embedded SQLite store: an edge bundle must never see a SQLite binding.
    assert.ok(!files.some((f) => f.startsWith('adapters/sqlite/')), 'cachette/workers reaches adapters/sqlite');
  });
});
