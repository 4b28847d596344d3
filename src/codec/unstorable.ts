/**
 * What a value must not hold to be stored, found before any serializer sees it, with where:
 *
 * - a Promise, or any other thenable (a query builder, a Knex or Drizzle query): a forgotten
 *   `await`. JSON and CBOR both write one as `{}`, in silence, so the first caller gets the
 *   Promise and every later one an empty object;
 * - a circular reference: JSON throws, CBOR overflows the stack ("Maximum call stack size
 *   exceeded"), neither says where.
 *
 * A quick walk over what JSON and CBOR encode (array items, enumerable properties, Map keys and
 * values, Set items; byte arrays, Dates and other leaves are not entered) looks for a thenable,
 * with no bookkeeping but its depth: it costs a fraction of the encoding it precedes. Only when
 * it finds one, or goes deeper than a cycle-free value usually does, a second walk tracks the
 * path and the ancestors: it stops at the first thenable, does not enter an object that is its
 * own ancestor (a cycle), and notes the first cycle, with where. Pure.
 */

/** Nesting past which the walk stops looking: the serializers refuse, or overflow, there on their own. */
const MAX_DEPTH = 512;
/** Nesting past which the quick walk hands over to the one that tracks ancestors: a cycle looks this deep at once. */
const QUICK_DEPTH = 64;
const CLEAN = 0;
const FOUND = 1;
const DEEP = 2;

/** One step of a path: a property name or an index, or a place in a Map or a Set. */
type Step = string | number | { readonly in: 'Map key' | 'Map value' | 'Set item'; readonly index: number };

/** What {@link findUnstorable} found. */
export interface Unstorable {
  /** Where the first thenable is (`value`, `value.user`, `value.items[2]`), if there is one. */
  readonly thenable?: string;
  /** The first circular reference: where it is, and the ancestor it refers back to. */
  readonly cycle?: { readonly at: string; readonly target: string };
}

/** The thenable and the cycle `value` holds (see the module comment), or undefined when it holds neither. */
export function findUnstorable(value: unknown): Unstorable | undefined {
  if (typeof value !== 'object' || value === null || quick(value, 0) === CLEAN) return undefined;
  const walk = new Walk();
  const thenable = walk.visit(value, 0);
  if (thenable) return { thenable: pathOf(walk.steps), cycle: walk.cycle };
  return walk.cycle ? { cycle: walk.cycle } : undefined;
}

class Walk {
  /** The path from the value to the node being visited, and the objects along it. */
  readonly steps: Step[] = [];
  readonly #ancestors: object[] = [];
  readonly #onPath = new Set<object>();
  cycle: { at: string; target: string } | undefined;

  /** True when a thenable was found at or below `node` (then {@link steps} leads to it). */
  visit(node: unknown, depth: number): boolean {
    if (typeof node !== 'object' || node === null) return false;
    if (typeof (node as { then?: unknown }).then === 'function') return true;
    if (depth >= MAX_DEPTH || isLeaf(node)) return false;
    if (this.#onPath.has(node)) {
      this.cycle ??= { at: pathOf(this.steps), target: pathOf(this.steps.slice(0, this.#ancestors.indexOf(node))) };
      return false;
    }
    this.#onPath.add(node);
    this.#ancestors.push(node);
    const found = this.#children(node, depth + 1);
    this.#ancestors.pop();
    this.#onPath.delete(node);
    return found;
  }

  #children(node: object, depth: number): boolean {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) if (this.#step(i, node[i], depth)) return true;
      return false;
    }
    if (node instanceof Map) {
      let index = 0;
      for (const [key, item] of node) {
        if (this.#step({ in: 'Map key', index }, key, depth) || this.#step({ in: 'Map value', index }, item, depth)) return true;
        index++;
      }
      return false;
    }
    if (node instanceof Set) {
      let index = 0;
      for (const item of node) if (this.#step({ in: 'Set item', index: index++ }, item, depth)) return true;
      return false;
    }
    const record = node as Record<string, unknown>;
    for (const name of Object.keys(record)) if (this.#step(name, record[name], depth)) return true;
    return false;
  }

  /** Visits `node` under `step`; the step stays on the path when a thenable was found there. */
  #step(step: Step, node: unknown, depth: number): boolean {
    // Primitives (most nodes) cost no push and pop.
    if (typeof node !== 'object' || node === null) return false;
    this.steps.push(step);
    if (this.visit(node, depth)) return true;
    this.steps.pop();
    return false;
  }
}

/**
 * Whether `node` (an object) holds a thenable ({@link FOUND}), none ({@link CLEAN}), or is too
 * deep to tell without tracking ancestors ({@link DEEP}). Primitives are skipped before a call.
 */
function quick(node: object, depth: number): number {
  if (depth === QUICK_DEPTH) return DEEP;
  const next = depth + 1;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const item: unknown = node[i];
      if (typeof item === 'object' && item !== null) {
        const found = quick(item, next);
        if (found !== CLEAN) return found;
      }
    }
    return CLEAN;
  }
  const proto: unknown = Object.getPrototypeOf(node);
  if (proto === Object.prototype || proto === null) {
    // A plain object (most nodes): its properties with no array of keys built; a `then`
    // method among them makes it a thenable.
    for (const name in node) {
      const item: unknown = (node as Record<string, unknown>)[name];
      if (typeof item === 'object' && item !== null) {
        const found = quick(item, next);
        if (found !== CLEAN) return found;
      } else if (name === 'then' && typeof item === 'function') return FOUND;
    }
    return CLEAN;
  }
  if (typeof (node as { then?: unknown }).then === 'function') return FOUND;
  if (isLeaf(node)) return CLEAN;
  const items: Iterable<unknown> = node instanceof Map ? [...node].flat() : node instanceof Set ? node : Object.values(node);
  for (const item of items) {
    if (typeof item === 'object' && item !== null) {
      const found = quick(item, next);
      if (found !== CLEAN) return found;
    }
  }
  return CLEAN;
}

/** Objects the serializers write whole, whose insides cannot hold a thenable or a cycle. */
function isLeaf(node: object): boolean {
  return node instanceof Date || ArrayBuffer.isView(node) || node instanceof ArrayBuffer || node instanceof RegExp;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `steps` as a path from the value: `value.user.orders[2]`, `value["a b"]`, `value.<Map value 0>`. */
function pathOf(steps: readonly Step[]): string {
  let path = 'value';
  for (const step of steps) {
    if (typeof step === 'number') path += `[${step}]`;
    else if (typeof step === 'string') path += IDENTIFIER.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`;
    else path += `.<${step.in} ${step.index}>`;
  }
  return path;
}
