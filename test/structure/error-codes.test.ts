// One error-code style (issue 29, item 6): every error class a package entry exports carries a
// `code` in the style `E_UPPER_SNAKE`, and so does every class of src/, adapters/ and runtimes/
// that declares one, except the documented exceptions (CODE_STYLE_EXCEPTIONS, listed in
// docs/API.md with their reason). One code names one class. docs/API.md lists them all
// (scripts/docs/error-codes.ts; test/docs/api-reference.test.ts keeps the page current).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODE_STYLE_EXCEPTIONS } from '../../scripts/docs/api-reference.ts';
import { ERROR_CODE_STYLE, readErrorCodes } from '../../scripts/docs/error-codes.ts';

const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { default: string } | string> };
const rows = readErrorCodes(root);

/** Every error class the package's entries export, as `entry: Class (file)`, with the class that declares its `code` (undefined: none). */
function exportedErrorClasses(): Array<{ label: string; name: string; codeFrom: string | undefined }> {
  const sources = Object.values(manifest.exports)
    .filter((target): target is { default: string } => typeof target === 'object')
    .map((target) => join(root, target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')));
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
  const program = ts.createProgram(sources, { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const found = new Map<string, { label: string; name: string; codeFrom: string | undefined }>();
  for (const file of sources) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
    for (const symbol of module ? checker.getExportsOfModule(module) : []) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      if (!(target.flags & ts.SymbolFlags.Class)) continue;
      const instance = checker.getDeclaredTypeOfSymbol(target);
      // An error class: its instances have what every Error has.
      if (!['name', 'message', 'stack'].every((property) => instance.getProperty(property) !== undefined)) continue;
      const declaration = target.declarations![0]!;
      const where = relative(root, declaration.getSourceFile().fileName);
      const code = instance.getProperty('code')?.declarations?.[0];
      const owner = code && ts.isClassDeclaration(code.parent) ? code.parent.name?.text : undefined;
      found.set(`${where}:${target.name}`, { label: `${target.name} (${where})`, name: target.name, codeFrom: owner });
    }
  }
  return [...found.values()];
}

describe('error codes', () => {
  let exported: ReturnType<typeof exportedErrorClasses>;
  // One compiler program over every entry: building it is most of the cost, and slow under load.
  beforeAll(() => {
    exported = exportedErrorClasses();
  }, 120_000);

  it('every error class an entry exports has a code of its own, in the style', () => {
    // The scan sees the store errors (a scan that finds nothing would pass).
    expect(exported.map((e) => e.name)).toEqual(expect.arrayContaining(['StoreError', 'StoreTimeoutError', 'ValueTooLargeError', 'SqliteStoreError']));
    const byClass = new Map(rows.map((row) => [row.className, row]));
    const problems: string[] = [];
    for (const { label, name, codeFrom } of exported) {
      // An inherited code would make two classes indistinguishable by code.
      if (codeFrom !== name) problems.push(`${label}: no code of its own${codeFrom ? ` (inherits ${codeFrom}'s)` : ''}`);
      else if (!byClass.has(name)) problems.push(`${label}: its code is not listed by scripts/docs/error-codes.ts`);
    }
    expect(problems).toEqual([]);
  });

  it('every code in src/, adapters/ and runtimes/ is in the style, but for the documented exceptions', () => {
    expect(rows.length).toBeGreaterThan(10);
    const offenders = rows.flatMap((row) =>
      row.className in CODE_STYLE_EXCEPTIONS ? [] : row.codes.filter((code) => !ERROR_CODE_STYLE.test(code)).map((code) => `${row.className} (${row.file}): ${code}`),
    );
    expect(offenders).toEqual([]);
    // An exception names a class that exists and still needs it: none outlives its reason.
    for (const name of Object.keys(CODE_STYLE_EXCEPTIONS)) {
      const row = rows.find((r) => r.className === name);
      expect(
        row?.codes.some((code) => !ERROR_CODE_STYLE.test(code)),
        name,
      ).toBe(true);
    }
  });

  it('one code names one class', () => {
    const owners = new Map<string, string[]>();
    for (const row of rows) for (const code of row.codes) owners.set(code, [...(owners.get(code) ?? []), row.className]);
    expect([...owners].filter(([, classes]) => classes.length > 1).map(([code, classes]) => `${code}: ${classes.join(', ')}`)).toEqual([]);
  });

  it('the style takes E_UPPER_SNAKE only', () => {
    for (const good of ['E_STORE', 'E_STORE_TIMEOUT', 'E_L1_FULL']) expect(ERROR_CODE_STYLE.test(good), good).toBe(true);
    for (const bad of ['ERR_CACHETTE_MISSING_PEER', 'E_store', 'E_', 'E__X', 'BUSY', 'E_X_']) expect(ERROR_CODE_STYLE.test(bad), bad).toBe(false);
  });

  it('reads a literal code, a union of literals through an alias, and refuses a code it cannot read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachette-codes-'));
    try {
      mkdirSync(join(dir, 'src'));
      for (const folder of ['adapters', 'runtimes', 'products']) mkdirSync(join(dir, folder));
      writeFileSync(
        join(dir, 'src', 'probe.ts'),
        [
          "type Kind = 'E_A' | 'E_B';",
          '/** First. Second sentence. */',
          "export class One extends Error { readonly code = 'E_ONE'; }",
          '/** Uses {@link One} too. */',
          'export class Two extends Error { readonly code: Kind = "E_A"; }',
          'export class Plain extends Error {}',
        ].join('\n'),
      );
      expect(readErrorCodes(dir)).toEqual([
        { className: 'One', file: 'src/probe.ts', codes: ['E_ONE'], meaning: 'First.' },
        { className: 'Two', file: 'src/probe.ts', codes: ['E_A'], meaning: 'Uses `One` too.' },
      ]);
      writeFileSync(join(dir, 'src', 'probe.ts'), "type Kind = 'E_A' | 'E_B';\nexport class Two extends Error { readonly code: Kind; constructor(code: Kind) { super(); this.code = code; } }\n");
      expect(readErrorCodes(dir)[0]!.codes).toEqual(['E_A', 'E_B']);
      writeFileSync(join(dir, 'src', 'probe.ts'), 'export class Vague extends Error { readonly code: string; constructor(code: string) { super(); this.code = code; } }\n');
      expect(() => readErrorCodes(dir)).toThrow(/Vague: its code is neither a string literal nor a union of them/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
