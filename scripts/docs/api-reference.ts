/**
 * docs/API.md, generated from the option types' TSDoc with the TypeScript compiler API: every
 * option of every documented call, with its type, its default (the "Default …" sentence of its
 * comment) and the first sentence of its comment. `npm run docs` rewrites the file;
 * test/docs/api-reference.test.ts fails when it is out of date, so the reference cannot rot.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ERROR_CODE_STYLE, readErrorCodes, type ErrorCodeRow } from './error-codes.ts';

/** One documented call: the option type it takes, by file and exported name. */
export interface ReferenceSection {
  title: string;
  call: string;
  file: string;
  type: string;
  /** The title of a section whose options this type also takes: listed there, not repeated here. */
  plus?: string;
}

/** The calls the reference covers, in reading order. */
export const SECTIONS: readonly ReferenceSection[] = [
  { title: 'createCache', call: "createCache(options) — 'cachette'", file: 'src/cache/options.ts', type: 'CacheOptions' },
  { title: 'circuitBreaker', call: 'createCache({ circuitBreaker })', file: 'src/cache/options.ts', type: 'CircuitBreakerOptions' },
  { title: 'compression', call: 'createCache({ compression })', file: 'src/codec/compression.ts', type: 'CompressionOptions' },
  { title: 'Per-call options', call: 'cache.set / getOrSet / setMany(key, value, options)', file: 'src/cache/types.ts', type: 'SetOptions' },
  { title: 'getOrSet', call: 'cache.getOrSet(key, factory, options)', file: 'src/cache/types.ts', type: 'GetOrSetOptions', plus: 'Per-call options' },
  { title: 'cache.close', call: 'cache.close(options)', file: 'src/cache/types.ts', type: 'CloseOptions' },
  { title: 'cache.wrap and @cached', call: "cache.wrap(fn, options), @cached(cache, options) — 'cachette'", file: 'src/cache/wrap.ts', type: 'WrapOptions' },
  {
    title: 'withCache and @cachedResponse',
    call: "withCache(handler, options), createHttpCache(options) — 'cachette/http'; @cachedResponse(options) — 'cachette'",
    file: 'src/http/exchange/options.ts',
    type: 'HttpCacheOptions',
  },
  { title: 'Hono', call: "cache(options) — 'cachette/hono'", file: 'src/bindings/hono/middleware.ts', type: 'HonoCacheOptions', plus: 'withCache and @cachedResponse' },
  { title: 'Express', call: "cache(options) — 'cachette/express'", file: 'runtimes/node-http/express/middleware.ts', type: 'ExpressCacheOptions', plus: 'withCache and @cachedResponse' },
  { title: 'Fastify', call: "app.register(cache, options) — 'cachette/fastify'", file: 'runtimes/node-http/fastify/plugin.ts', type: 'FastifyCacheOptions', plus: 'withCache and @cachedResponse' },
  { title: 'serve', call: "serve(handler, options) — 'cachette/node', 'cachette/bun', 'cachette/deno'", file: 'runtimes/shared/server-cache.ts', type: 'ServeOptions' },
  {
    title: 'serve({ cache }) and withCache',
    call: "serve(handler, { cache: options }), withCache(handler, options) — 'cachette/node', 'cachette/bun', 'cachette/deno'",
    file: 'runtimes/shared/server-cache.ts',
    type: 'ServerCacheOptions',
    plus: 'withCache and @cachedResponse',
  },
  {
    title: 'Workers',
    call: "withCache(app, options) — 'cachette/workers', 'cachette/workers/upstash'",
    file: 'runtimes/workers/cached-worker.ts',
    type: 'WorkersCacheOptions',
    plus: 'withCache and @cachedResponse',
  },
  { title: 'memoryStore', call: "memoryStore(options) — 'cachette/adapters/memory'", file: 'adapters/memory/index.ts', type: 'MemoryStoreOptions' },
  { title: 'valkeyStore', call: "valkeyStore(url | options) — 'cachette/adapters/valkey'", file: 'adapters/valkey/index.ts', type: 'ValkeyStoreOptions' },
  { title: 'upstashStore', call: "upstashStore(options | client) — 'cachette/adapters/upstash'", file: 'adapters/upstash/store.ts', type: 'UpstashConnectionOptions' },
  { title: 'cloudflareKvStore', call: "cloudflareKvStore(options) — 'cachette/adapters/cloudflare-kv'", file: 'adapters/cloudflare-kv/index.ts', type: 'CloudflareKvStoreOptions' },
  { title: 'sqliteStore', call: "sqliteStore(path | options) — 'cachette/adapters/sqlite'", file: 'adapters/sqlite/options.ts', type: 'SqliteStoreOptions' },
  { title: 'OpenTelemetry', call: "instrument(cache, options) — 'cachette/otel'", file: 'src/otel/instrument.ts', type: 'InstrumentOptions' },
];

/** One row of the reference. */
export interface OptionRow {
  name: string;
  type: string;
  optional: boolean;
  defaultValue: string;
  meaning: string;
}

/** A sentence naming the default: "Default 1000 ms.", "Default: none.", or a `@default` tag. */
const DEFAULT_SENTENCE = /^Defaults?\b[:\s]/;
/** A first sentence that is only a default ("Default 3000; 0 picks a free port."), not "Default time a value stays fresh.". */
const LEADING_DEFAULT = /^Defaults?(:|\s+(\d|["'`]|true\b|false\b))/;
/** "…; default: bun:sqlite on Bun, …" at the end of the first sentence. */
const INLINE_DEFAULT = /;\s*(default:?\s.*?)\.?$/i;

/** The options of every section, read from the sources under `root`. */
export function readOptions(root: string, sections: readonly ReferenceSection[] = SECTIONS): Map<ReferenceSection, OptionRow[]> {
  const files = [...new Set(sections.map((s) => join(root, s.file)))];
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(files, { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const result = new Map<ReferenceSection, OptionRow[]>();
  for (const section of sections) {
    const source = program.getSourceFile(join(root, section.file));
    if (!source) throw new Error(`api reference: ${section.file} is not in the program`);
    const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((s) => s.name === section.type);
    if (!exported) throw new Error(`api reference: ${section.file} does not export ${section.type}`);
    const type = checker.getDeclaredTypeOfSymbol(exported);
    result.set(
      section,
      checker
        .getPropertiesOfType(type)
        .map((property) => optionRow(property, checker))
        .sort((a, b) => Number(a.optional) - Number(b.optional)),
    );
  }
  return result;
}

function optionRow(property: ts.Symbol, checker: ts.TypeChecker): OptionRow {
  const declaration = property.valueDeclaration ?? property.declarations?.[0];
  const typeNode = declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
  const type = typeNode ? typeNode.getText().replace(/\s+/g, ' ') : checker.typeToString(checker.getTypeOfSymbol(property));
  const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
  const doc = ts.displayPartsToString(property.getDocumentationComment(checker)).replace(/\s+/g, ' ').trim();
  // Sentences end at a full stop before a capital or a code span, but not after "e.g." or "i.e.".
  const sentences = doc.split(/(?<!\be\.g\.|\bi\.e\.)(?<=\.)\s+(?=[A-Z`"'(])/).filter(Boolean);
  const tagged = property.getJsDocTags(checker).find((tag) => tag.name === 'default' || tag.name === 'defaultValue');
  // The first sentence says what the option means; a later one that starts with "Default" says
  // its default ("Default time a value stays fresh." is a meaning, not a default).
  let [meaning = '', ...rest] = sentences;
  let defaultSentence = rest.find((s) => DEFAULT_SENTENCE.test(s));
  if (!defaultSentence && LEADING_DEFAULT.test(meaning)) [defaultSentence, meaning] = [meaning, ''];
  const inline = defaultSentence ? undefined : INLINE_DEFAULT.exec(meaning);
  if (inline) [defaultSentence, meaning] = [inline[1]!, `${meaning.slice(0, inline.index)}.`];
  const defaultValue = tagged ? ts.displayPartsToString(tagged.text) : defaultSentence ? defaultSentence.replace(/^Defaults?:?\s*/i, '').replace(/\.$/, '') : optional ? '—' : 'required';
  return { name: property.name, type, optional, defaultValue, meaning };
}

/** Markdown table cells must not break the table. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** GitHub's anchor for a heading. */
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

/**
 * Classes whose `code` keeps another vocabulary, and why: documented public API from before the
 * style was fixed, so changing the value would break callers that compare it.
 */
export const CODE_STYLE_EXCEPTIONS: Readonly<Record<string, string>> = {
  SqliteStoreError:
    "names SQLite's primary result code (`BUSY`, `FULL`, `CORRUPT`, …) or one of the store's own conditions (`FOREIGN`, `TOONEW`), as it has since the store shipped (`SqliteErrorCode`)",
};

/** The "Error codes" section: the style, then every code with the class that carries it. */
function renderErrorCodes(rows: readonly ErrorCodeRow[]): string[] {
  const lines = [
    '## Error codes',
    '',
    'Every error cachette raises for you to tell apart carries a stable `code`: `E_` and upper-case words joined by `_` (`E_STORE_TIMEOUT`), the same string on every runtime. Compare `error.code`, never the message. A subclass has its own code (`StoreTimeoutError` is `E_STORE_TIMEOUT`, and still `instanceof StoreError`). Generated from the error classes by scripts/docs/error-codes.ts; test/structure/error-codes.test.ts fails when an exported error class has no code in this style.',
    '',
    '| code | class | meaning |',
    '|---|---|---|',
  ];
  const exceptions: string[] = [];
  for (const row of rows) {
    const styled = row.codes.filter((code) => ERROR_CODE_STYLE.test(code));
    for (const code of styled) lines.push(`| \`${code}\` | \`${row.className}\` (\`${row.file}\`) | ${cell(row.meaning)} |`);
    if (styled.length < row.codes.length)
      exceptions.push(`- \`${row.className}\` (\`${row.file}\`): its \`code\` ${CODE_STYLE_EXCEPTIONS[row.className] ?? 'is not in the style'}: ${row.codes.map((code) => `\`${code}\``).join(', ')}.`);
  }
  if (exceptions.length > 0) lines.push('', 'One exception:', '', ...exceptions);
  lines.push('');
  return lines;
}

/** docs/API.md as it should read for the sources under `root`. */
export function renderReference(root: string, options: Map<ReferenceSection, OptionRow[]> = readOptions(root), errors: readonly ErrorCodeRow[] = readErrorCodes(root)): string {
  const lines = [
    '# API reference: options and error codes',
    '',
    'Generated by `npm run docs` from the TSDoc of the option types and the error classes',
    '(scripts/docs/api-reference.ts); test/docs/api-reference.test.ts fails when this file is out of',
    "date. Durations are milliseconds or strings such as `'250ms'`, `'10s'`, `'5m'`, `'1h'`. A dash",
    'means the option is unset unless given. [Error codes](#error-codes) are at the end.',
    '',
  ];
  const byTitle = new Map([...options.keys()].map((section) => [section.title, section]));
  for (const [section, all] of options) {
    const inherited = section.plus ? new Set(options.get(byTitle.get(section.plus)!)!.map((row) => row.name)) : undefined;
    const rows = inherited ? all.filter((row) => !inherited.has(row.name)) : all;
    lines.push(`## ${section.title}`, '', `\`${section.call}\` · \`${section.type}\` in \`${section.file}\``, '');
    if (section.plus) lines.push(`Every option of [${section.plus}](#${anchor(section.plus)})${rows.length ? ', and:' : '; none of its own.'}`, '');
    if (rows.length === 0) continue;
    lines.push('| option | type | default | meaning |', '|---|---|---|---|');
    for (const row of rows) lines.push(`| \`${row.name}\` | \`${cell(row.type)}\` | ${cell(row.defaultValue)} | ${cell(row.meaning)} |`);
    lines.push('');
  }
  lines.push(...renderErrorCodes(errors));
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = join(import.meta.dirname, '..', '..');
  writeFileSync(join(root, 'docs', 'API.md'), renderReference(root));
  console.log('wrote docs/API.md');
}
