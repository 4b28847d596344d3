/**
 * A store wrapper that injects latency, errors and partitions in front of any real store, so a
 * test can show what an application does when its cache's store is slow or gone — the fallback
 * paths, the breaker, stale-if-error — without stopping a server. Calls that pass through reach
 * the wrapped store unchanged; calls a fault takes never reach it.
 */
import { StoreBusyError, StoreClosedError, StoreUnavailableError } from '../store/errors.ts';
import type { Store } from '../store/types.ts';
import { type Duration, toMs } from '../util/duration.ts';

/** The store calls a fault can take: every method of the store contract that reaches the store. */
export const STORE_OPERATIONS = [
  'get',
  'getMany',
  'set',
  'setMany',
  'delete',
  'incr',
  'pipeline',
  'add',
  'compareAndDelete',
  'clear',
  'keys',
  'readWithGenerations',
  'expireEntries',
  'writeGenerations',
] as const;

/** One of {@link STORE_OPERATIONS}. */
export type StoreOperation = (typeof STORE_OPERATIONS)[number];

const READS: readonly StoreOperation[] = ['get', 'getMany', 'keys', 'readWithGenerations'];

/** What a fault does to the calls it matches. */
export interface Fault {
  /** The calls it takes: a list, `'reads'` (get, getMany, keys, readWithGenerations), `'writes'` (the others) or `'all'` (default). */
  ops?: readonly StoreOperation[] | 'reads' | 'writes' | 'all';
  /** Added before the call goes on (or fails). */
  latency?: Duration;
  /** The call rejects with this instead of reaching the store (a function gets the operation). Default: none, the call goes on after `latency`. */
  error?: Error | ((op: StoreOperation) => Error);
  /** The share of matching calls taken, 0 to 1 (default 1), drawn from the wrapper's seeded generator so that a run repeats. */
  rate?: number;
  /** Takes at most this many calls, then removes itself. Default: until removed. */
  times?: number;
}

/** A fault in place; {@link InjectedFault.remove} takes it away. */
export interface InjectedFault {
  /** Calls this fault has taken so far. */
  readonly taken: number;
  /** Removes the fault; calls already delayed by it go on. */
  remove(): void;
}

/** The wrapper: a {@link Store} plus the controls a test drives. */
export interface FaultyStore extends Store {
  /** The store calls pass through to. */
  readonly inner: Store;
  /** Calls that reached the inner store, per operation. */
  readonly calls: Readonly<Record<StoreOperation, number>>;
  /** Calls a fault or the partition failed. */
  readonly failed: number;
  /** Adds a fault; the newest matching fault decides each call. */
  inject(fault: Fault): InjectedFault;
  /**
   * Cuts the store off: every call from now on rejects at once with a `StoreUnavailableError`,
   * as a store whose connection is known to be down does, without reaching the store, until
   * {@link heal}. (A connection that hangs instead is `inject({ latency, error })`.)
   */
  partition(): void;
  /** Ends the partition: later calls go through (or to the faults in place). */
  heal(): void;
  /** Removes every fault and ends any partition. */
  reset(): void;
}

/** Options of {@link faultyStore}. */
export interface FaultyStoreOptions {
  /** Seed of the generator that draws `rate` (default 1): the same seed takes the same calls. */
  seed?: number;
}

interface Rule extends InjectedFault {
  readonly ops: ReadonlySet<StoreOperation>;
  readonly latencyMs: number;
  readonly error: Fault['error'];
  readonly rate: number;
  left: number;
  taken: number;
}

/** mulberry32: a small, well-mixed 32-bit generator; enough to pick calls reproducibly. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function opsOf(ops: Fault['ops']): ReadonlySet<StoreOperation> {
  if (ops === undefined || ops === 'all') return new Set(STORE_OPERATIONS);
  if (ops === 'reads') return new Set(READS);
  if (ops === 'writes') return new Set(STORE_OPERATIONS.filter((op) => !READS.includes(op)));
  if (!Array.isArray(ops) || ops.length === 0) throw new TypeError(`faultyStore.inject: ops must be 'all', 'reads', 'writes' or a non-empty list of ${STORE_OPERATIONS.join(', ')}`);
  for (const op of ops) if (!STORE_OPERATIONS.includes(op)) throw new TypeError(`faultyStore.inject: unknown operation ${JSON.stringify(op)}; known: ${STORE_OPERATIONS.join(', ')}`);
  return new Set(ops);
}

function ruleOf(fault: Fault, remove: (rule: Rule) => void): Rule {
  if (typeof fault !== 'object' || fault === null) throw new TypeError('faultyStore.inject: the fault must be an object');
  const rate = fault.rate ?? 1;
  if (!(rate >= 0 && rate <= 1)) throw new RangeError(`faultyStore.inject: rate must be between 0 and 1, got ${String(fault.rate)}`);
  const times = fault.times ?? Infinity;
  if (times !== Infinity && !(Number.isInteger(times) && times > 0)) throw new RangeError(`faultyStore.inject: times must be a positive integer, got ${String(fault.times)}`);
  if (fault.error !== undefined && !(fault.error instanceof Error) && typeof fault.error !== 'function') throw new TypeError('faultyStore.inject: error must be an Error or a function returning one');
  const latencyMs = fault.latency === undefined ? 0 : toMs(fault.latency, 'faultyStore.inject latency');
  if (latencyMs === Infinity) throw new RangeError('faultyStore.inject: latency must be finite (use partition() for a store that never answers)');
  const rule: Rule = {
    ops: opsOf(fault.ops),
    latencyMs,
    error: fault.error,
    rate,
    left: times,
    taken: 0,
    remove: () => remove(rule),
  };
  return rule;
}

/**
 * Wraps `inner` with injectable faults. The wrapper keeps the inner store's name, address and
 * capabilities, with two exceptions a test should know: it offers no `track`/`coherence`
 * (an L1 tier over it cannot be coherent; fault-test that against a real server), and its
 * synchronous reads (`getSync`, …) step aside with a `StoreBusyError` while a fault or the
 * partition could take them, so that the engine makes the asynchronous call the fault applies to.
 *
 * ```ts
 * const store = faultyStore(memoryStore());
 * const outage = store.inject({ ops: 'reads', error: new Error('boom') });
 * ```
 */
export function faultyStore(inner: Store, options: FaultyStoreOptions = {}): FaultyStore {
  if (typeof inner?.get !== 'function') throw new TypeError('faultyStore: the first argument must be a store (memoryStore(), valkeyStore(…), …)');
  const random = seeded(options.seed ?? 1);
  const rules: Rule[] = [];
  const calls = Object.fromEntries(STORE_OPERATIONS.map((op) => [op, 0])) as Record<StoreOperation, number>;
  let failed = 0;
  let cut = false;
  let closed = false;

  const drop = (rule: Rule) => {
    const at = rules.indexOf(rule);
    if (at >= 0) rules.splice(at, 1);
  };
  /** The newest rule that takes this call, counted as taken; undefined when none does. */
  const take = (op: StoreOperation): Rule | undefined => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!;
      if (!rule.ops.has(op) || (rule.rate < 1 && random() >= rule.rate)) continue;
      rule.taken++;
      if (--rule.left === 0) drop(rule);
      return rule;
    }
    return undefined;
  };
  const couldTake = (op: StoreOperation) => cut || rules.some((rule) => rule.ops.has(op));

  async function call<T>(op: StoreOperation, run: () => Promise<T>): Promise<T> {
    if (closed) throw new StoreClosedError(inner.name);
    if (cut) {
      failed++;
      throw new StoreUnavailableError(`${inner.name}: partitioned by faultyStore (the call never reached the store; heal() ends it)`);
    }
    const rule = take(op);
    if (rule) {
      if (rule.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, rule.latencyMs));
      if (rule.error !== undefined) {
        failed++;
        throw typeof rule.error === 'function' ? rule.error(op) : rule.error;
      }
    }
    calls[op]++;
    return run();
  }
  function stepAside(op: StoreOperation): void {
    if (closed) throw new StoreClosedError(inner.name);
    if (couldTake(op)) throw new StoreBusyError(`${inner.name}: a faultyStore fault may take ${op}; the engine makes the asynchronous call`);
    calls[op]++;
  }
  const heal = () => {
    cut = false;
  };

  const store: FaultyStore = {
    name: inner.name,
    address: inner.address,
    local: inner.local,
    ordered: inner.ordered,
    compressionThreshold: inner.compressionThreshold,
    inner,
    calls,
    get failed() {
      return failed;
    },
    inject(fault) {
      const rule = ruleOf(fault, drop);
      rules.push(rule);
      return rule;
    },
    partition() {
      cut = true;
    },
    heal,
    reset() {
      rules.length = 0;
      heal();
    },
    get: (key) => call('get', () => inner.get(key)),
    getMany: (keys) => call('getMany', () => inner.getMany(keys)),
    set: (key, value, ttlMs) => call('set', () => inner.set(key, value, ttlMs)),
    setMany: (entries) => call('setMany', () => inner.setMany(entries)),
    delete: (keys) => call('delete', () => inner.delete(keys)),
    incr: (key, by, ttlMs) => call('incr', () => inner.incr(key, by, ttlMs)),
    async close() {
      closed = true;
      await inner.close();
    },
  };
  // Optional capabilities exist on the wrapper exactly when the inner store has them: the engine
  // chooses its paths by their presence.
  const { pipeline, add, compareAndDelete, clear, keys, readWithGenerations, expireEntries, writeGenerations, getSync, getManySync, readWithGenerationsSync } = inner;
  if (pipeline) store.pipeline = (ops) => call('pipeline', () => pipeline.call(inner, ops));
  if (add) store.add = (key, value, ttlMs) => call('add', () => add.call(inner, key, value, ttlMs));
  if (compareAndDelete) store.compareAndDelete = (key, expected) => call('compareAndDelete', () => compareAndDelete.call(inner, key, expected));
  if (clear) store.clear = (prefix) => call('clear', () => clear.call(inner, prefix));
  if (keys) store.keys = (prefix, cursor) => call('keys', () => keys.call(inner, prefix, cursor));
  if (readWithGenerations) store.readWithGenerations = (read) => call('readWithGenerations', () => readWithGenerations.call(inner, read));
  if (expireEntries) store.expireEntries = (request) => call('expireEntries', () => expireEntries.call(inner, request));
  if (writeGenerations) store.writeGenerations = (write) => call('writeGenerations', () => writeGenerations.call(inner, write));
  if (getSync) {
    store.getSync = (key) => {
      stepAside('get');
      return getSync.call(inner, key);
    };
  }
  if (getManySync) {
    store.getManySync = (keys) => {
      stepAside('getMany');
      return getManySync.call(inner, keys);
    };
  }
  if (readWithGenerationsSync) {
    store.readWithGenerationsSync = (read) => {
      stepAside('readWithGenerations');
      return readWithGenerationsSync.call(inner, read);
    };
  }
  return store;
}
