// The package's public entry points: package.json "exports", the sources they are built from,
// the names examples import them by (tsconfig paths), and the README's links.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string } | string> };
const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

/** The TypeScript options of the repository, paths included. */
function repoCompilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

describe('entry points', () => {
  const options = repoCompilerOptions();
  // `./package.json` exports the manifest itself (for tools that read it), not a module.
  const modules = Object.entries(manifest.exports).filter((entry): entry is [string, { types: string; default: string }] => typeof entry[1] === 'object');
  const entries = modules.map(([subpath, target]) => ({
    specifier: subpath === '.' ? 'cachette' : `cachette/${subpath.slice(2)}`,
    source: join(root, target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    target,
  }));

  it('each export is built from a source that exists, with its declarations beside it', () => {
    expect(entries.length).toBeGreaterThan(5);
    for (const { source, target } of entries) {
      expect(existsSync(source), source).toBe(true);
      expect(target.types.replace(/\.d\.ts$/, '.js'), target.types).toBe(target.default);
    }
  });

  it('examples resolve each export by name to the same source (tsconfig paths)', () => {
    const from = join(root, 'examples', 'any.ts');
    for (const { specifier, source } of entries) {
      const resolved = ts.resolveModuleName(specifier, from, options, ts.sys).resolvedModule?.resolvedFileName;
      expect(resolved && resolve(resolved), specifier).toBe(resolve(source));
    }
  });

  it('examples import the package by name, never its files by path', () => {
    // examples/proxy moves out of examples/ (issue 13, item 11), with its imports.
    const offenders = sources(join(root, 'examples'))
      .filter((file) => !file.includes(`${sep}proxy${sep}`))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(IMPORT)]
          .map((m) => (m[1] ?? m[2])!)
          .filter((spec) => spec.startsWith('.') && !resolve(dirname(file), spec).startsWith(dirname(file) + sep))
          .map((spec) => `${relative(root, file)} imports ${spec}`),
      );
    expect(offenders).toEqual([]);
  });
});

describe('README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  it('links only to files inside the repository that exist, and to its own headings', () => {
    const slugs = new Set(
      [...readme.matchAll(/^#+\s+(.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .trim()
          .replace(/\s+/g, '-'),
      ),
    );
    const problems: string[] = [];
    for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https?:/.test(target!)) continue;
      if (target!.startsWith('#')) {
        if (!slugs.has(target!.slice(1))) problems.push(`${target}: no such heading`);
        continue;
      }
      const path = resolve(root, target!.split('#')[0]!);
      if (!path.startsWith(root)) problems.push(`${target}: outside the repository`);
      else if (!existsSync(path)) problems.push(`${target}: missing`);
    }
    expect(problems).toEqual([]);
  });

  it('names no path outside the repository', () => {
    expect(readme.match(/(?:^|[\s`(])\.\.\/[^\s`)]*/gm) ?? []).toEqual([]);
  });
});
