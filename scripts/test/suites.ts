/**
 * What each test file needs besides Node itself, read from its sources so the split between the
 * fast unit set and the suites that need services can never drift from what the files do.
 *
 * The convention a test follows to say what it needs (docs/testing.md):
 *
 * - **redis**: it gets the suite's redis-server from `test/support/redis-env.ts` (`requireRedis()`,
 *   `redisUrl`), reads `REDIS_URL`, starts a server of its own (`startRedis`, `REDIS_SERVER_BIN`),
 *   or talks to the Upstash bridge in front of it (`spawnBridge`, `UPSTASH_REDIS_REST_URL`);
 * - **cluster**: it gets the local Redis Cluster (`requireCluster()`, `clusterNodes`,
 *   `VALKEY_CLUSTER_NODES`, `startRedisCluster`);
 * - **runtime**: it runs another runtime's binary (`node_modules/.bin/bun`, `deno`, `workerd`,
 *   `wrangler`).
 *
 * A file needs what any module it imports (relative imports under test/, bench/ and scripts/,
 * static or dynamic) needs; the modules that provide the services are not followed, only the
 * names taken from them count (importing `freePort` from redis-server.ts needs no server).
 * Library code (src/, adapters/, runtimes/) never starts a service and is not read.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** A service or binary a suite needs besides Node. */
export type Need = 'redis' | 'cluster' | 'runtime';

/** The order needs are named in, e.g. in a project name ("redis+cluster"). */
export const NEEDS: readonly Need[] = ['redis', 'cluster', 'runtime'];

/** Names that, used in a module, say it needs a service. */
const SIGNALS: Record<Exclude<Need, 'runtime'>, ReadonlySet<string>> = {
  redis: new Set(['requireRedis', 'redisUrl', 'REDIS_URL', 'startRedis', 'REDIS_SERVER_BIN', 'spawnBridge', 'UPSTASH_REDIS_REST_URL']),
  cluster: new Set(['requireCluster', 'clusterNodes', 'VALKEY_CLUSTER_NODES', 'startRedisCluster']),
};
/** The binaries of the other runtimes, as node_modules/.bin names them. */
const RUNTIME_BINARIES: ReadonlySet<string> = new Set(['bun', 'deno', 'workerd', 'wrangler']);

/**
 * Modules not followed: the support modules that provide services (their importers are judged by
 * the names they take), and the modules that name the signals only to look for them.
 */
const PROVIDERS: readonly string[] = [
  'test/support/redis-env.ts',
  'test/support/redis-server.ts',
  'test/support/redis-cluster.ts',
  'test/support/bridge-process.ts',
  'test/support/global-setup.ts',
  'scripts/test/suites.ts',
  'scripts/test/unit-guard.ts',
];

/** Folders whose modules are followed; everything else is library code or a dependency. */
const FOLLOWED: readonly string[] = ['test', 'bench', 'scripts'];

/** What one module says directly: the needs its own text shows, and the modules it imports. */
interface ModuleFacts {
  needs: Set<Need>;
  imports: string[];
}

/**
 * The needs of one module's own text. Identifiers and string literals only: comments and
 * prose that mention `REDIS_URL` say nothing about what the code does.
 */
export function directNeeds(source: string): Set<Need> {
  const needs = new Set<Need>();
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, source);
  let binFolder = false;
  let runtimeName = false;
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    let word: string | undefined;
    if (token === ts.SyntaxKind.Identifier) word = scanner.getTokenText();
    else if (token === ts.SyntaxKind.StringLiteral || token === ts.SyntaxKind.NoSubstitutionTemplateLiteral) word = scanner.getTokenValue();
    else if (token === ts.SyntaxKind.SlashToken || token === ts.SyntaxKind.SlashEqualsToken) {
      // A regular expression literal: rescan it so its text is not read as code.
      if (scanner.reScanSlashToken() === ts.SyntaxKind.RegularExpressionLiteral) continue;
    }
    if (word === undefined) continue;
    for (const need of ['redis', 'cluster'] as const) if (SIGNALS[need].has(word)) needs.add(need);
    // A literal that is a path to `.bin/bun`, or the folder and the name apart (`join(BIN, 'bun')`).
    const bin = /(?:^|[/\\])node_modules[/\\]\.bin(?:[/\\]([\w-]+))?$/.exec(word);
    if (bin) {
      binFolder = true;
      if (bin[1] && RUNTIME_BINARIES.has(bin[1])) needs.add('runtime');
    }
    if (RUNTIME_BINARIES.has(word) && token !== ts.SyntaxKind.Identifier) runtimeName = true;
  }
  if (binFolder && runtimeName) needs.add('runtime');
  return needs;
}

/** The relative module specifiers `source` imports, statically or dynamically, types included. */
function importSpecifiers(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('./') || name.startsWith('../'));
}

/** Maps test files (repo-relative, `/`-separated) to what they need, reading their import graphs. */
export class SuiteClassifier {
  readonly #root: string;
  readonly #facts = new Map<string, ModuleFacts>();
  readonly #needs = new Map<string, Set<Need>>();

  constructor(root: string) {
    this.#root = root;
  }

  /** What `file` (relative to the root) needs; an empty set means the unit set. */
  needsOf(file: string): ReadonlySet<Need> {
    return this.#resolveNeeds(this.#key(join(this.#root, file)), new Set());
  }

  #key(absolute: string): string {
    return relative(this.#root, absolute).split(sep).join('/');
  }

  #factsOf(key: string): ModuleFacts {
    let facts = this.#facts.get(key);
    if (!facts) {
      const path = join(this.#root, key);
      const source = existsSync(path) ? readFileSync(path, 'utf8') : '';
      const imports: string[] = [];
      for (const specifier of importSpecifiers(source)) {
        const target = this.#key(resolve(dirname(path), specifier));
        if (!FOLLOWED.some((folder) => target.startsWith(`${folder}/`))) continue;
        imports.push(target);
      }
      facts = { needs: directNeeds(source), imports };
      this.#facts.set(key, facts);
    }
    return facts;
  }

  #resolveNeeds(key: string, visiting: Set<string>): Set<Need> {
    const known = this.#needs.get(key);
    if (known) return known;
    const facts = this.#factsOf(key);
    const needs = new Set(facts.needs);
    visiting.add(key);
    for (const target of facts.imports) {
      // An import cycle adds nothing the first visit of the module does not add.
      if (PROVIDERS.includes(target) || visiting.has(target)) continue;
      for (const need of this.#resolveNeeds(target, visiting)) needs.add(need);
    }
    visiting.delete(key);
    // A module inside a cycle is settled by the cycle's first module; cache only settled results.
    if (visiting.size === 0 || !facts.imports.some((target) => visiting.has(target))) this.#needs.set(key, needs);
    return needs;
  }
}

/** The Node test files vitest runs (its include patterns, the workerd suites apart). */
export function nodeTestFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && path !== 'test/workers' && path !== 'test/package') walk(path);
      } else if (entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const dir of ['test', 'src', 'adapters', 'scripts']) if (existsSync(join(root, dir))) walk(dir);
  return files.sort();
}

/** A group of files with the same needs: a vitest project. */
export interface SuiteGroup {
  /** `unit`, or the needs joined by `+` (`redis`, `redis+cluster`, `redis+runtime`, …). */
  name: string;
  needs: readonly Need[];
  files: string[];
}

/** The name of the group for `needs`. */
export function groupName(needs: Iterable<Need>): string {
  const set = new Set(needs);
  const named = NEEDS.filter((need) => set.has(need));
  return named.length === 0 ? 'unit' : named.join('+');
}

/** Groups `files` by what they need; the unit group first, then the others by name. */
export function groupSuites(root: string, files: readonly string[]): SuiteGroup[] {
  const classifier = new SuiteClassifier(root);
  const groups = new Map<string, SuiteGroup>([['unit', { name: 'unit', needs: [], files: [] }]]);
  for (const file of files) {
    const needs = NEEDS.filter((need) => classifier.needsOf(file).has(need));
    const name = groupName(needs);
    let group = groups.get(name);
    if (!group) groups.set(name, (group = { name, needs, files: [] }));
    group.files.push(file);
  }
  return [...groups.values()].sort((a, b) => (a.name === 'unit' ? -1 : b.name === 'unit' ? 1 : a.name.localeCompare(b.name)));
}
