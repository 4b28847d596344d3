/**
 * The error codes of the package, read from the sources for docs/API.md ("Error codes") and for
 * test/structure/error-codes.test.ts: every class of `src/`, `adapters/` and `runtimes/` that
 * declares a `code` property, with the codes it can carry (a string-literal initializer, or a
 * union of string literals named by its type, as SqliteStoreError's `SqliteErrorCode`) and the
 * first sentence of its comment. Parsed file by file, without a type checker: cheap enough for
 * the docs test to run on every change.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The style of every cachette error code: `E_` and upper-case words joined by `_`. */
export const ERROR_CODE_STYLE = /^E_[A-Z0-9]+(?:_[A-Z0-9]+)*$/;

/** The folders whose classes ship in the package. */
const SHIPPED = ['src', 'adapters', 'runtimes', 'products'];

/** One class that carries a `code`. */
export interface ErrorCodeRow {
  /** The class, e.g. `StoreBusyError`. */
  className: string;
  /** Repository-relative path of the file that declares it. */
  file: string;
  /** The codes an instance can carry, in declaration order. */
  codes: string[];
  /** The first sentence of the class's comment. */
  meaning: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The string literals a type node stands for: a literal, a union of them, or an alias of either declared in `source`. */
function literalsOf(type: ts.TypeNode | undefined, source: ts.SourceFile): string[] | undefined {
  if (type === undefined) return undefined;
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isUnionTypeNode(type)) {
    const parts = type.types.map((member) => literalsOf(member, source));
    return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
  }
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
    const name = type.typeName.text;
    const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name);
    return alias && literalsOf(alias.type, source);
  }
  return undefined;
}

/** The codes a `code` property declaration can hold; a property whose codes cannot be read is refused (the list must be complete). */
function codesOf(property: ts.PropertyDeclaration, source: ts.SourceFile, where: string): string[] {
  if (property.initializer && ts.isStringLiteral(property.initializer)) return [property.initializer.text];
  const literals = literalsOf(property.type, source);
  if (literals === undefined) throw new Error(`${where}: its code is neither a string literal nor a union of them`);
  return literals;
}

/** The first sentence of a node's JSDoc, on one line. */
function firstSentence(node: ts.Node): string {
  const comment = ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
    .join(' ')
    .replace(/\{@link\s+([^}\s|]+)[^}]*\}/g, '`$1`')
    .replace(/\s+/g, ' ')
    .trim();
  const end = comment.search(/(?<!\be\.g|\bi\.e)\.(\s|$)/);
  return end === -1 ? comment : comment.slice(0, end + 1);
}

/** Every class under `root`'s shipped folders that declares a `code`, sorted by file then class. */
export function readErrorCodes(root: string): ErrorCodeRow[] {
  const rows: ErrorCodeRow[] = [];
  for (const path of SHIPPED.flatMap((folder) => sources(join(root, folder)))) {
    const text = readFileSync(path, 'utf8');
    if (!/\bcode\b/.test(text)) continue;
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const file = relative(root, path).split('\\').join('/');
    for (const statement of source.statements) {
      if (!ts.isClassDeclaration(statement) || statement.name === undefined) continue;
      const property = statement.members.find((m): m is ts.PropertyDeclaration => ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === 'code');
      if (property === undefined) continue;
      const className = statement.name.text;
      rows.push({ className, file, codes: codesOf(property, source, `${file}: ${className}`), meaning: firstSentence(statement) });
    }
  }
  return rows.sort((a, b) => a.file.localeCompare(b.file) || a.className.localeCompare(b.className));
}
