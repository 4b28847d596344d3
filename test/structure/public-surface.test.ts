// The public surface (docs/architecture.md#rules-the-tests-enforce, issue 20): the root entry holds what application code calls and
// stays small; internals such as the entry envelope are exported by no entry; one name means one
// idea across every entry; package.json "sideEffects" lists exactly the modules that run code
// for its effect when they load, so bundlers keep them (a bundled Node app must still install
// node:zlib's DEFLATE, not quietly keep fflate).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string } | string>;
  sideEffects: string[] | boolean;
  bin: Record<string, string>;
};

/** At most this many names in `cachette` (bentocache's root has 6, Hono's about 20). */
const ROOT_LIMIT = 30;
/** Modules no entry may export anything from. */
const INTERNAL_MODULES = ['src/codec/envelope.ts', 'src/store/layout/envelope.ts'];
/** Hooks the Node, Bun and Deno entries install when they load: never for users to call. */
const INTERNAL_NAMES = ['installPlatformDeflate', 'installImpliedTypeProbe'];
/**
 * One idea with one implementation per platform, under one name: the framework middleware, the
 * server helper, "put a fetch handler behind the HTTP cache", the store picked from the
 * environment. Any other name exported by two entries must be the same declaration.
 */
const PER_PLATFORM = new Set(['cache', 'serve', 'withCache', 'storeFromEnv']);
/**
 * `default` is each entry's own thing where its ecosystem expects a default export (a Fastify
 * plugin, an unstorage driver): one name, by convention, for different ideas.
 */
const BY_CONVENTION = new Set(['default']);

/** A package.json target under dist/ as the source it is built from. */
const sourceOf = (target: string) => join(root, target.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));

const entries = Object.entries(manifest.exports)
  .filter((entry): entry is [string, { default: string }] => typeof entry[1] === 'object')
  .map(([subpath, target]) => ({ specifier: subpath === '.' ? 'cachette' : `cachette/${subpath.slice(2)}`, source: sourceOf(target.default) }));

const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const options = ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
const program = ts.createProgram(
  entries.map((entry) => entry.source),
  { ...options, noEmit: true },
);
const checker = program.getTypeChecker();

/** One exported name of one entry, and the declaration it stands for. */
interface ExportedName {
  entry: string;
  name: string;
  /** `file:position` of the declaration, after following re-exports. */
  declaration: string;
  file: string;
  deprecated: boolean;
}

function exportsOf(entry: (typeof entries)[number]): ExportedName[] {
  const source = program.getSourceFile(entry.source);
  if (!source) throw new Error(`${entry.specifier}: ${entry.source} is not in the program`);
  return checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declaration = target.declarations?.[0];
    if (!declaration) throw new Error(`${entry.specifier}: ${symbol.name} has no declaration`);
    const file = relative(root, declaration.getSourceFile().fileName);
    const deprecated = (target.declarations ?? []).some((d) => ts.getJSDocTags(d).some((tag) => tag.tagName.text === 'deprecated'));
    return { entry: entry.specifier, name: symbol.name, declaration: `${file}:${declaration.pos}`, file, deprecated };
  });
}

const exported = entries.flatMap(exportsOf);

describe('the public surface', () => {
  it(`the root entry exports at most ${ROOT_LIMIT} names, what application code calls`, () => {
    const names = exported.filter((e) => e.entry === 'cachette').map((e) => e.name);
    // The scan sees the entry (a scan that checks nothing would pass).
    expect(names).toContain('createCache');
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(ROOT_LIMIT);
  });

  it('no entry exports the envelope, nor the hooks the platform entries install', () => {
    expect(INTERNAL_MODULES.every((file) => program.getSourceFile(join(root, file)) !== undefined)).toBe(true);
    const leaks = exported.filter((e) => INTERNAL_MODULES.includes(e.file) || INTERNAL_NAMES.includes(e.name)).map((e) => `${e.entry} exports ${e.name} (${e.file})`);
    expect(leaks).toEqual([]);
    // Nor may a path pattern (`./*`) make internal files importable.
    expect(Object.keys(manifest.exports).filter((subpath) => subpath.includes('*'))).toEqual([]);
    expect(entries.filter((entry) => INTERNAL_MODULES.includes(relative(root, entry.source)))).toEqual([]);
  });

  it('one name means one idea: a name two entries export is one declaration, or one per platform, or deprecated', () => {
    const byName = new Map<string, ExportedName[]>();
    for (const e of exported) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
    const problems: string[] = [];
    for (const [name, all] of byName) {
      const declarations = new Map(all.map((e) => [e.declaration, e]));
      if (declarations.size < 2 || PER_PLATFORM.has(name) || BY_CONVENTION.has(name)) continue;
      // While an old name lives on as a deprecated alias, it may still mean the old thing elsewhere.
      const current = [...declarations.values()].filter((e) => !e.deprecated);
      if (current.length > 1) problems.push(`${name}: ${all.map((e) => `${e.entry} (${e.file})`).join(', ')}`);
    }
    expect(problems).toEqual([]);
  });
});

/** True when a statement runs code for its effect as the module loads. */
function hasEffect(statement: ts.Statement): boolean {
  if (ts.isImportDeclaration(statement)) return statement.importClause === undefined;
  if (ts.isIfStatement(statement) || ts.isTryStatement(statement)) return true;
  if (!ts.isExpressionStatement(statement)) return false;
  // `void name;` (a compile-time check kept from being unused) runs nothing.
  const expression = statement.expression;
  return !(ts.isVoidExpression(expression) && ts.isIdentifier(expression.expression));
}

function modules(dir: string): string[] {
  return ts.sys.readDirectory(join(root, dir), ['.ts'], ['**/*.test.ts', '**/*.d.ts']).map((file) => relative(root, file));
}

describe('package.json sideEffects', () => {
  it('lists exactly the modules that run code for its effect when they load', () => {
    expect(Array.isArray(manifest.sideEffects), 'sideEffects is a list, not true or false').toBe(true);
    const withEffects = ['src', 'adapters', 'runtimes', 'products']
      .flatMap(modules)
      .filter((file) => ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest).statements.some(hasEffect))
      .map((file) => `./dist/${file.replace(/\.ts$/, '.js')}`)
      .sort();
    // The scan finds the module that installs the platform hooks (a scan that finds nothing would pass).
    expect(withEffects).toContain('./dist/runtimes/native/install.js');
    expect([...(manifest.sideEffects as string[])].sort()).toEqual(withEffects);
  });
});
