import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const STORE_CLIENTS = ['iovalkey', 'ioredis', 'redis', '@upstash/redis', '@cloudflare/workers-types', 'better-sqlite3', 'bun:sqlite'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
}

describe('layering (docs/architecture.md#layers)', () => {
  it('src/ imports no node: module and no store client', () => {
    const offenders = sources(join(root, 'src')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('node:') || STORE_CLIENTS.some((c) => spec === c || spec.startsWith(`${c}/`)))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('src/ never reaches into adapters/ or runtimes/', () => {
    const offenders = sources(join(root, 'src')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => /(^|\/)(adapters|runtimes)\//.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('adapters/ import nothing from runtimes/ or products/', () => {
    const offenders = sources(join(root, 'adapters')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => /(^|\/)(runtimes|products)\//.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('adapters/ import from src/ only the store contract (src/store/, its stored formats in src/store/layout/) and src/util/', () => {
    const src = join(root, 'src');
    const allowed = [join(src, 'store'), join(src, 'util')];
    const reached = sources(join(root, 'adapters')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => ({ file, target: resolve(dirname(file), spec) }))
        .filter(({ target }) => target.startsWith(src + sep)),
    );
    const offenders = reached.filter(({ target }) => !allowed.some((dir) => target.startsWith(dir + sep))).map(({ file, target }) => `${relative(root, file)} imports ${relative(root, target)}`);
    expect(offenders).toEqual([]);
    // The scan sees the adapters' imports of src/ (guards against a scan that checks nothing).
    expect(reached.map(({ target }) => relative(root, target))).toContain(join('src', 'store', 'types.ts'));
  });

  it('src/http/rules/ (the pure HTTP rules) imports nothing from the HTTP machinery', () => {
    const http = join(root, 'src', 'http');
    const rules = join(http, 'rules');
    const files = sources(rules);
    const offenders = files.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolve(dirname(file), spec))
        .filter((target) => target.startsWith(http + sep) && !target.startsWith(rules + sep))
        .map((target) => `${relative(root, file)} imports ${relative(root, target)}`),
    );
    expect(offenders).toEqual([]);
    expect(files.map((f) => relative(root, f))).toContain(join('src', 'http', 'rules', 'freshness.ts'));
  });

  it('src/ and runtimes/ import nothing from products/ (the products sit on top)', () => {
    const offenders = [...sources(join(root, 'src')), ...sources(join(root, 'runtimes'))].flatMap((file) =>
      importsOf(file)
        .filter((spec) => /(^|\/)products\//.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the products' commands import the flag parsing below the dispatcher, never the dispatcher", () => {
    const offenders = sources(join(root, 'products'))
      .filter((file) => !file.includes(`${join('products', 'cli')}/`))
      .flatMap((file) =>
        importsOf(file)
          .filter((spec) => /(^|\/)cli\/[^/]*$/.test(spec) && !spec.startsWith('./'))
          .map((spec) => `${relative(root, file)} imports ${spec}`),
      );
    expect(offenders).toEqual([]);
  });

  it('the scan sees the engine (guards against a scan that checks nothing)', () => {
    const files = sources(join(root, 'src')).map((f) => relative(root, f));
    expect(files).toContain(join('src', 'cache', 'create-cache.ts'));
    expect(sources(join(root, 'products')).map((f) => relative(root, f))).toContain(join('products', 'proxy', 'cli.ts'));
    expect(importsOf(join(root, 'src', 'codec', 'serializers.ts'))).toContain('cbor-x/encode');
  });
});
