// No import cycle anywhere in the repository (issue 20, item 5): a module never depends, through
// any chain of imports, on itself. Type-level imports count (`import type`, `export type … from`,
// `import('…')` in a type): a cycle of types still means two modules that cannot be read, tested
// or moved apart, and it becomes a load-order cycle the day one of them imports a value. Lazy
// `import()` calls count too, for the same reason.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
/** Every folder of the design card that holds TypeScript. */
const FOLDERS = ['src', 'adapters', 'runtimes', 'products', 'examples', 'test', 'bench', 'scripts'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.[mc]?tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier `text` names: value and type imports and re-exports, `import()` calls and `import('…')` types. */
function specifiersOf(fileName: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression))
      found.push(node.moduleReference.expression.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true));
  return found;
}

/** The cycles of a directed graph: one closed path (first node repeated last) per strongly connected component that has one. */
function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative: a deep import chain must not overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const frames: Array<{ node: string; next: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, index.size);
      low.set(node, index.get(node)!);
      stack.push(node);
      onStack.add(node);
      frames.push({ node, next: (graph.get(node) ?? new Set()).values() });
    };
    enter(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || graph.get(frame.node)?.has(frame.node)) components.push(component);
    }
  }
  return components.map((component) => closedPath(graph, new Set(component)));
}

/** A shortest closed path through the first (in sorted order) member of a strongly connected component. */
function closedPath(graph: ReadonlyMap<string, ReadonlySet<string>>, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const to of graph.get(node) ?? []) {
      if (!component.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let step: string | undefined = node; step !== undefined && step !== start; step = previous.get(step)) path.splice(1, 0, step);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  throw new Error(`no closed path through ${start}`);
}

/** The repository's modules, each with the repository modules it imports (bare specifiers resolved as tsconfig says: `cachette/*` is src). */
function repositoryGraph(): Map<string, Set<string>> {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
  const files = FOLDERS.flatMap((folder) => sources(join(root, folder)));
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const imports = new Set<string>();
    for (const specifier of specifiersOf(file, readFileSync(file, 'utf8'))) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule;
      if (resolved && known.has(resolved.resolvedFileName)) imports.add(resolved.resolvedFileName);
    }
    graph.set(relative(root, file), new Set([...imports].map((path) => relative(root, path))));
  }
  return graph;
}

describe('import cycles', () => {
  it('the repository has none, type-level imports included', () => {
    const graph = repositoryGraph();
    // The scan sees the engine and follows type-only imports (a scan that sees nothing would pass).
    expect(graph.get(join('src', 'index.ts'))).toContain(join('src', 'cache', 'create-cache.ts'));
    expect(graph.size).toBeGreaterThan(300);
    expect(cyclesOf(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
    // Reading every file of the repository takes 4 s of an idle machine, over 20 s of a loaded one.
  }, 120_000);

  it('reads every kind of import: value, type-only, re-export, import() calls and import() types', () => {
    const text = [
      "import { a } from './value.ts';",
      "import type { B } from './type-only.ts';",
      "export type { C } from './re-export.ts';",
      "export * from './star.ts';",
      "const lazy = () => import('./lazy.ts');",
      "let typed: import('./import-type.ts').D;",
      "import legacy = require('./require.ts');",
    ].join('\n');
    expect(specifiersOf('probe.ts', text)).toEqual(['./value.ts', './type-only.ts', './re-export.ts', './star.ts', './lazy.ts', './import-type.ts', './require.ts']);
  });

  it('finds a cycle however long, names it as a closed path, and passes a graph without one', () => {
    const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));
    expect(cyclesOf(graph({ a: ['b'], b: ['c'], c: [], d: ['a', 'c'] }))).toEqual([]);
    expect(cyclesOf(graph({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cyclesOf(graph({ self: ['self'] }))).toEqual([['self', 'self']]);
    expect(cyclesOf(graph({ x: ['y'], y: ['x'], p: ['q'], q: ['p'] })).sort()).toEqual([
      ['p', 'q', 'p'],
      ['x', 'y', 'x'],
    ]);
    // A chain far longer than any call stack allows for recursion.
    const chain: Record<string, string[]> = {};
    for (let i = 0; i < 20_000; i++) chain[`m${i}`] = [`m${i + 1}`];
    chain.m20000 = ['m0'];
    expect(cyclesOf(graph(chain))[0]).toHaveLength(20_002);
  });
});
