// Every store of the repository passes the shipped contract suite (issue 20, item 3): each
// adapters/<name> (but the code they share) is imported, directly or through a helper beside
// it, by a test file that calls cachette/store/testing's describeStoreContract. A new adapter
// without a contract run fails here, before anyone reviews it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const SHARED = new Set(['shared']);
const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.ts$/.test(name) ? [path] : [];
  });
}

/** The repository files `file` imports by a relative path, with the `.ts` they name. */
function relativeImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)]
    .map((match) => (match[1] ?? match[2])!)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(dirname(file), specifier))
    .filter((path) => existsSync(path));
}

/** The adapter folders `file` reaches through its imports, following test helpers (not the adapters' own imports). */
function adaptersReached(file: string, seen = new Set<string>()): Set<string> {
  const reached = new Set<string>();
  for (const path of relativeImports(file)) {
    const inRepo = relative(root, path);
    if (inRepo.startsWith(`adapters${sep}`)) reached.add(inRepo.split(sep)[1]!);
    else if (inRepo.startsWith(`test${sep}`) && !seen.has(path)) {
      seen.add(path);
      for (const adapter of adaptersReached(path, seen)) reached.add(adapter);
    }
  }
  return reached;
}

describe('the shipped contract suite', () => {
  it('runs against every adapter of the repository', () => {
    const adapters = readdirSync(join(root, 'adapters')).filter((name) => statSync(join(root, 'adapters', name)).isDirectory() && !SHARED.has(name));
    // The scan sees the stores (a scan that sees none would pass).
    expect(adapters).toEqual(expect.arrayContaining(['memory', 'valkey', 'sqlite', 'upstash', 'cloudflare-kv', 'bun-redis']));
    const runs = files(join(root, 'test')).filter((file) => /describeStoreContract\(/.test(readFileSync(file, 'utf8')) && !file.endsWith(join('test', 'store', 'contract-suite.test.ts')));
    const covered = new Set(runs.flatMap((file) => [...adaptersReached(file)]));
    expect(adapters.filter((adapter) => !covered.has(adapter))).toEqual([]);
  });
});
