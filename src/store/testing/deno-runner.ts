/**
 * Deno's test runner as a {@link SuiteApi}, for the store contract and any suite written against
 * it. Typed structurally: the package needs no Deno types.
 */
import type { SuiteApi } from './suite-api.ts';

/** The slice of the Deno namespace this runner uses. */
declare const Deno: {
  test(definition: { name: string; fn: () => Promise<void>; sanitizeOps: boolean; sanitizeResources: boolean; ignore?: boolean }): void;
};

type Hook = () => Promise<void> | void;

interface Scope {
  name: string;
  before: Hook[];
  after: Hook[];
  /** Tests and child scopes, in declaration order. */
  children: Array<Scope | Leaf>;
  started: boolean;
  /** Leaf tests under this scope that have not finished yet; afterAll runs when it reaches 0. */
  remaining: number;
  /** The error a beforeAll threw: every test under the scope fails with it. */
  failure?: unknown;
}

interface Leaf {
  name: string;
  body: Hook;
}

/**
 * A {@link SuiteApi} over `Deno.test`, with nothing to install. Each `it` becomes one top-level
 * Deno test named "describe > it", so the JUnit report counts exactly the tests the suite
 * declares; beforeAll hooks run before the first test of their describe and afterAll hooks after
 * its last, in declaration order, which is the order Deno runs the tests of a file in. Resource sanitizers are off: a store's
 * connection legitimately outlives a single test.
 */
export function denoRunner(): SuiteApi {
  const root: Scope = newScope('');
  const parents = new Map<Scope, Scope>();
  let current = root;
  return {
    describe(name, body) {
      const parent = current;
      const scope = newScope(name);
      parents.set(scope, parent);
      parent.children.push(scope);
      current = scope;
      try {
        body();
      } finally {
        current = parent;
      }
      if (parent === root) register([scope], scope);
    },
    it(name, body) {
      const leaf = { name, body };
      if (current === root) register([], leaf);
      else current.children.push(leaf);
    },
    beforeAll(body) {
      current.before.push(body);
    },
    afterAll(body) {
      current.after.push(body);
    },
    skip(name) {
      // Ignored tests run no hooks, so they need no place in the scope bookkeeping.
      const chain: string[] = [];
      for (let scope: Scope | undefined = current; scope && scope !== root; scope = parents.get(scope)) chain.unshift(scope.name);
      Deno.test({ name: [...chain, name].join(' > '), ignore: true, sanitizeOps: false, sanitizeResources: false, fn: async () => {} });
    },
  };
}

function newScope(name: string): Scope {
  return { name, before: [], after: [], children: [], started: false, remaining: 0 };
}

/** Registers every leaf under `node` with the chain of scopes above it. */
function register(chain: Scope[], node: Scope | Leaf): void {
  if (!('children' in node)) {
    for (const scope of chain) scope.remaining++;
    Deno.test({ name: [...chain.map((s) => s.name), node.name].join(' > '), sanitizeOps: false, sanitizeResources: false, fn: () => runLeaf(chain, node) });
    return;
  }
  for (const child of node.children) register('children' in child ? [...chain, child] : chain, child);
}

async function runLeaf(chain: readonly Scope[], leaf: Leaf): Promise<void> {
  try {
    for (const scope of chain) {
      if (!scope.started) {
        scope.started = true;
        try {
          for (const hook of scope.before) await hook();
        } catch (error) {
          scope.failure = error;
        }
      }
      if (scope.failure !== undefined) throw scope.failure;
    }
    await leaf.body();
  } finally {
    // Innermost first, like every runner: the last test of a describe closes what it opened.
    for (const scope of [...chain].reverse()) {
      if (--scope.remaining === 0) for (const hook of scope.after) await hook();
    }
  }
}
