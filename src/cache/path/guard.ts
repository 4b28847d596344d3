import { CircuitOpenError, errorMessage, StoreBusyError, StoreClosedError, StoreRefusedError, StoreTimeoutError } from '../../store/errors.ts';
import type { ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry, StoreOp, StoreOpResult } from '../../store/types.ts';
import type { Clock } from '../clock.ts';
import { Breaker, type HealthChange, type HealthKind } from './breaker.ts';
import { Deadlines, type Deadline } from './deadlines.ts';
import { StoreLayer } from './layer.ts';

/** Where the guard reports what it sees; the engine turns these into events, stats and log lines. */
export interface GuardReporter {
  /** A call that reached the store and failed (or timed out). */
  failed(operation: string, keys: string | readonly string[], error: unknown): void;
  /** A call the open breaker kept away from the store. */
  skipped(operation: string): void;
  /** A breaker changed state. */
  healthChanged(change: HealthChange): void;
}

/** Settings of {@link GuardLayer}. */
export interface GuardOptions {
  /** Per-call timeout in ms; Infinity for none. */
  timeoutMs: number;
  /** Consecutive failures that mark reads (or writes) as down. */
  threshold: number;
  /** How long a down half is skipped before one probe call is let through. */
  cooldownMs: number;
  clock: Clock;
  reporter: GuardReporter;
}

const READ_OPS = new Set<StoreOp['kind']>(['get', 'getMany']);

/**
 * The store guard: every call gets a timeout (from one coarse timer) and goes through a
 * circuit breaker. Reads and writes have a breaker each, because they fail for different
 * reasons: a server at `maxmemory` refuses writes yet serves every read. A failure is reported
 * once here and rejected to the layer above; calls refused on their own merits
 * ({@link StoreRefusedError}) never count against the store's health.
 */
export class GuardLayer extends StoreLayer {
  readonly #reads: Breaker;
  readonly #writes: Breaker;
  readonly #deadlines: Deadlines | undefined;
  readonly #reporter: GuardReporter;
  readonly #storeLabel: string;

  constructor(next: Store, options: GuardOptions) {
    super(next);
    const onChange = (change: HealthChange) => options.reporter.healthChanged(change);
    this.#reads = new Breaker('read', options.threshold, options.cooldownMs, options.clock, onChange);
    this.#writes = new Breaker('write', options.threshold, options.cooldownMs, options.clock, onChange);
    this.#deadlines = Number.isFinite(options.timeoutMs) ? new Deadlines(options.timeoutMs, options.clock) : undefined;
    this.#reporter = options.reporter;
    this.#storeLabel = next.address ? `${next.name} ${next.address}` : next.name;
    this.forwardSyncReads();
  }

  /** True while reads, or writes, are held as down. */
  isDown(kind: HealthKind): boolean {
    return (kind === 'read' ? this.#reads : this.#writes).down;
  }

  override get(key: string): Promise<Uint8Array | undefined> {
    if (!this.#reads.admit()) return this.#skip('get');
    return this.#watch(
      this.#reads,
      'get',
      key,
      send(() => this.next.get(key)),
    );
  }

  override getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (!this.#reads.admit()) return this.#skip('getMany');
    return this.#watch(
      this.#reads,
      'getMany',
      keys,
      send(() => this.next.getMany(keys)),
    );
  }

  override set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    if (!this.#writes.admit()) return this.#skip('set');
    return this.#watch(
      this.#writes,
      'set',
      key,
      send(() => this.next.set(key, value, ttlMs)),
    );
  }

  /** {@link set}, watched as one: the same breaker, deadline and reports. */
  override setEntry(entry: StoreEntry): Promise<void> {
    if (!this.#writes.admit()) return this.#skip('set');
    return this.#watch(
      this.#writes,
      'set',
      entry.key,
      send(() => this.next.setEntry!(entry)),
    );
  }

  override setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (!this.#writes.admit()) return this.#skip('setMany');
    return this.#watch(
      this.#writes,
      'setMany',
      entries.map((entry) => entry.key),
      send(() => this.next.setMany(entries)),
    );
  }

  override delete(keys: readonly string[]): Promise<number> {
    if (!this.#writes.admit()) return this.#skip('delete');
    return this.#watch(
      this.#writes,
      'delete',
      keys,
      send(() => this.next.delete(keys)),
    );
  }

  override incr(key: string, by: number, ttlMs?: number): Promise<number> {
    if (!this.#writes.admit()) return this.#skip('incr');
    return this.#watch(
      this.#writes,
      'incr',
      key,
      send(() => this.next.incr(key, by, ttlMs)),
    );
  }

  override add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    if (!this.#writes.admit()) return this.#skip('add');
    return this.#watch(
      this.#writes,
      'add',
      key,
      send(() => this.next.add!(key, value, ttlMs)),
    );
  }

  override compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    if (!this.#writes.admit()) return this.#skip('compareAndDelete');
    return this.#watch(
      this.#writes,
      'compareAndDelete',
      key,
      send(() => this.next.compareAndDelete!(key, expected)),
    );
  }

  override clear(prefix: string): Promise<void> {
    if (!this.#writes.admit()) return this.#skip('clear');
    return this.#watch(
      this.#writes,
      'clear',
      prefix,
      send(() => this.next.clear!(prefix)),
    );
  }

  /** A read: each step of a walk over the keys is one call, timed and counted on its own. */
  override keys(prefix: string, cursor?: string): Promise<KeyPage> {
    if (!this.#reads.admit()) return this.#skip('keys');
    return this.#watch(
      this.#reads,
      'keys',
      prefix,
      send(() => this.next.keys!(prefix, cursor)),
    );
  }

  /** A read, even when it creates a missing generation counter: it answers what reads ask. */
  override readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    if (!this.#reads.admit()) return this.#skip('readWithGenerations');
    return this.#watch(
      this.#reads,
      'readWithGenerations',
      () => [...read.keys, ...read.tags.map((tag) => tag.generation)],
      send(() => this.next.readWithGenerations!(read)),
    );
  }

  override writeGenerations(write: GenerationWrite): Promise<void> {
    if (!this.#writes.admit()) return this.#skip('writeGenerations');
    return this.#watch(
      this.#writes,
      'writeGenerations',
      () => write.tags.map((tag) => tag.generation),
      send(() => this.next.writeGenerations!(write)),
    );
  }

  /** A write: it rewrites entries (their headers and TTLs). */
  override expireEntries(request: ExpireRequest): Promise<number> {
    if (!this.#writes.admit()) return this.#skip('expireEntries');
    return this.#watch(
      this.#writes,
      'expireEntries',
      request.keys,
      send(() => this.next.expireEntries!(request)),
    );
  }

  override getSync(key: string): Uint8Array | undefined {
    return this.#readNow('get', key, getNow, key);
  }

  override getManySync(keys: readonly string[]): Array<Uint8Array | undefined> {
    return this.#readNow('getMany', keys, getManyNow, keys);
  }

  override readWithGenerationsSync(read: GenerationRead): GenerationReadResult {
    return this.#readNow('readWithGenerations', read.keys, readWithGenerationsNow, read);
  }

  /**
   * A synchronous read through the read breaker: it cannot hang, so it has no deadline, and a
   * failure is reported and thrown like an asynchronous one is rejected. A store too busy to
   * answer without waiting ({@link StoreBusyError}) answered all the same: that is no failure,
   * and the caller makes the asynchronous read instead.
   */
  #readNow<A, R>(operation: string, keys: string | readonly string[], call: (store: Store, argument: A) => R, argument: A): R {
    if (!this.#reads.admit()) {
      this.#reporter.skipped(operation);
      throw this.#circuitOpen(operation);
    }
    let result: R;
    try {
      result = call(this.next, argument);
    } catch (error) {
      if (error instanceof StoreBusyError) this.#reads.success();
      else this.#report(this.#reads, operation, keys, error);
      throw error;
    }
    this.#reads.success();
    return result;
  }

  /**
   * A pipeline mixes reads and writes: each op goes through the breaker of its kind, so reads
   * still reach a store that refuses writes. Ops a breaker holds back get a CircuitOpenError in
   * their slot; each answered op counts for the health of its own kind.
   */
  override pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    if (ops.length === 0) return Promise.resolve([]);
    let hasReads = false;
    let hasWrites = false;
    for (const op of ops) {
      if (READ_OPS.has(op.kind)) hasReads = true;
      else hasWrites = true;
    }
    // Ask only the breakers of the kinds present: asking lets a probe through.
    const readsOpen = hasReads && this.#reads.admit();
    const writesOpen = hasWrites && this.#writes.admit();
    const breakers = readsOpen && writesOpen ? [this.#reads, this.#writes] : readsOpen ? this.#reads : this.#writes;
    // Every kind present admitted (the usual tick): the ops go down as they are, their answers back in their slots.
    if (hasReads === readsOpen && hasWrites === writesOpen) return this.#sendAll(ops, breakers);
    const results: StoreOpResult[] = new Array<StoreOpResult>(ops.length);
    const sent: StoreOp[] = [];
    const slots: number[] = [];
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (READ_OPS.has(op.kind) ? readsOpen : writesOpen) {
        sent.push(op);
        slots.push(i);
      } else {
        this.#reporter.skipped(op.kind);
        results[i] = this.#circuitOpen(op.kind);
      }
    }
    if (sent.length === 0) return Promise.resolve(results);
    return this.#sendAll(sent, breakers).then((answers) => {
      for (let i = 0; i < sent.length; i++) results[slots[i]!] = answers[i];
      return results;
    });
  }

  /** Sends `ops` (all admitted) as one pipeline: an answer per op, the call's error in every slot when it fails. */
  #sendAll(ops: readonly StoreOp[], breakers: Breaker | Breaker[]): Promise<StoreOpResult[]> {
    return this.#watch(
      breakers,
      'pipeline',
      () => ops.flatMap(keysOf),
      send(() => this.next.pipeline!(ops)),
    ).then(
      (answers) => {
        for (let i = 0; i < ops.length; i++) {
          const answer = answers[i];
          if (answer instanceof Error) this.#report(READ_OPS.has(ops[i]!.kind) ? this.#reads : this.#writes, ops[i]!.kind, keysOf(ops[i]!), answer);
        }
        return answers;
      },
      (error: unknown) => ops.map(() => error as Error),
    );
  }

  override async close(): Promise<void> {
    this.#deadlines?.stop();
    await this.next.close();
  }

  #skip<T>(operation: string): Promise<T> {
    this.#reporter.skipped(operation);
    return Promise.reject(this.#circuitOpen(operation));
  }

  #circuitOpen(operation: string): CircuitOpenError {
    return new CircuitOpenError(`${this.#storeLabel}: ${operation} skipped, the store is held as down (circuit open)`);
  }

  /**
   * Settles with the store's answer, or fails at the deadline, whichever comes first. `keys`
   * may be a function so that a pipeline builds its key list only when something failed.
   */
  #watch<T>(breaker: Breaker | readonly Breaker[], operation: string, keys: string | readonly string[] | (() => readonly string[]), promise: Promise<T>): Promise<T> {
    const deadlines = this.#deadlines;
    if (deadlines === undefined) {
      return promise.then(
        (value) => {
          succeed(breaker);
          return value;
        },
        (error: unknown) => {
          this.#report(breaker, operation, keys, error);
          throw error;
        },
      );
    }
    return new Promise<T>((resolve, reject) => {
      const call: Deadline & { settled: boolean } = {
        at: deadlines.next(),
        settled: false,
        expire: () => {
          call.settled = true;
          const error = new StoreTimeoutError(`${this.#storeLabel}: ${operation} did not answer within ${deadlines.timeoutMs} ms`);
          this.#report(breaker, operation, keys, error);
          reject(error);
        },
      };
      deadlines.watch(call);
      promise.then(
        (value) => {
          if (call.settled) return;
          call.settled = true;
          succeed(breaker);
          resolve(value);
        },
        (error: unknown) => {
          if (call.settled) return;
          call.settled = true;
          this.#report(breaker, operation, keys, error);
          reject(error);
        },
      );
    });
  }

  /**
   * Counts a failed call against the health of its kind (unless refused on its merits) and
   * reports it once. A call on a closed store is neither: the store is not unreachable, its
   * caller used it after close(), and the engine passes the error on as it is.
   */
  #report(breaker: Breaker | readonly Breaker[], operation: string, keys: string | readonly string[] | (() => readonly string[]), error: unknown): void {
    if (error instanceof StoreClosedError) {
      if (breaker instanceof Breaker) breaker.inconclusive();
      else for (const each of breaker) each.inconclusive();
      return;
    }
    if (error instanceof StoreRefusedError) succeed(breaker);
    else {
      const cause = errorMessage(error);
      if (breaker instanceof Breaker) breaker.failure(cause);
      else for (const each of breaker) each.failure(cause);
    }
    this.#reporter.failed(operation, typeof keys === 'function' ? keys() : keys, error);
  }
}

// The synchronous reads, as functions of the store, so that a call allocates no closure.
const getNow = (store: Store, key: string) => store.getSync!(key);
const getManyNow = (store: Store, keys: readonly string[]) => store.getManySync!(keys);
const readWithGenerationsNow = (store: Store, read: GenerationRead) => store.readWithGenerationsSync!(read);

/** Calls a store method; a store that throws instead of rejecting still fails only its own call. */
function send<T>(call: () => Promise<T>): Promise<T> {
  try {
    return call();
  } catch (error) {
    return Promise.reject(error);
  }
}

function succeed(breaker: Breaker | readonly Breaker[]): void {
  if (breaker instanceof Breaker) breaker.success();
  else for (const each of breaker) each.success();
}

/** The keys an op touches, for error events. */
export function keysOf(op: StoreOp): readonly string[] {
  switch (op.kind) {
    case 'get':
    case 'set':
    case 'incr':
      return [op.key];
    case 'getMany':
    case 'delete':
      return op.keys;
    case 'setMany':
      return op.entries.map((entry) => entry.key);
  }
}
