import type { ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry, StoreOp, StoreOpResult } from '../../store/types.ts';
import { StoreLayer } from './layer.ts';
import { runInOrder, sendOp, toError } from './ops.ts';
import { TickFlush } from '../../store/tick-flush.ts';

/** An op waiting for the end of the tick, with the promise of the caller who issued it. */
type Queued = StoreOp & {
  resolve(value: StoreOpResult): void;
  reject(error: unknown): void;
};

/** A call that must keep its place in the order without being folded (add, clear, …). */
interface Barrier {
  kind: 'barrier';
  run(): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Folds the store calls issued in one tick into one round trip, in the order they were issued
 * (whatever depth of their callers' promise chains they come from: see src/store/tick-flush.ts).
 * Every op of the tick goes out as one {@link Store.pipeline} (the valkey store turns a run of
 * gets into one MGET, a run of plain sets into one MSET, and writes the whole tick to the socket
 * at once). Fifty concurrent gets cost the server one command and the client one reply.
 *
 * A lone call must not pay for this: on a store that keeps the order of calls in flight
 * (`ordered`), a call made while nothing else is in flight or waiting goes straight down, and
 * only calls made while others are under way wait for the fold. One call at a time therefore
 * costs what the store costs, and under load whole waves travel together: when a wave's
 * answers come back, the first caller to go again finds the others still counted in flight
 * (or already waiting), so it joins the next fold instead of splitting the wave in two.
 * Calls that cannot be folded (add, compareAndDelete, clear) keep their place as barriers.
 */
export class BatchLayer extends StoreLayer {
  #queue: Array<Queued | Barrier> = [];
  /** Sends the queue once the tick's calls are all in (src/store/tick-flush.ts). */
  readonly #tick = new TickFlush(
    () => this.#queue.length,
    () => this.#flush(),
  );
  /** Ops sent down and not yet answered. */
  #inFlight = 0;
  readonly #lead: boolean;

  constructor(next: Store) {
    super(next);
    // No synchronous reads (StoreLayer offers none unless asked): one would overtake the writes
    // waiting in the queue.
    this.#lead = next.ordered === true;
  }

  override get(key: string): Promise<Uint8Array | undefined> {
    if (this.#mayLead()) return this.#track(this.next.get(key));
    return this.#fold({ kind: 'get', key }) as Promise<Uint8Array | undefined>;
  }

  override getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (this.#mayLead()) return this.#track(this.next.getMany(keys));
    return this.#fold({ kind: 'getMany', keys }) as Promise<Array<Uint8Array | undefined>>;
  }

  override set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    if (this.#mayLead()) return this.#track(this.next.set(key, value, ttlMs));
    return this.#fold({ kind: 'set', key, value, ttlMs }) as Promise<void>;
  }

  /** {@link set} of one entry: folded as a setMany of it, which the store writes as it writes a set. */
  override setEntry(entry: StoreEntry): Promise<void> {
    if (this.#mayLead()) return this.#track(this.next.setEntry!(entry));
    return this.#fold({ kind: 'setMany', entries: [entry] }) as Promise<void>;
  }

  override setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (this.#mayLead()) return this.#track(this.next.setMany(entries));
    return this.#fold({ kind: 'setMany', entries }) as Promise<void>;
  }

  override delete(keys: readonly string[]): Promise<number> {
    if (this.#mayLead()) return this.#track(this.next.delete(keys));
    return this.#fold({ kind: 'delete', keys }) as Promise<number>;
  }

  override incr(key: string, by: number, ttlMs?: number): Promise<number> {
    if (this.#mayLead()) return this.#track(this.next.incr(key, by, ttlMs));
    return this.#fold({ kind: 'incr', key, by, ttlMs }) as Promise<number>;
  }

  override add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    return this.#barrier(() => this.next.add!(key, value, ttlMs));
  }

  override compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return this.#barrier(() => this.next.compareAndDelete!(key, expected));
  }

  override clear(prefix: string): Promise<void> {
    return this.#barrier(() => this.next.clear!(prefix));
  }

  /** A barrier: a step of the walk sees every write issued before it. */
  override keys(prefix: string, cursor?: string): Promise<KeyPage> {
    return this.#barrier(() => this.next.keys!(prefix, cursor));
  }

  override pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    return this.#barrier(() => this.next.pipeline!(ops));
  }

  override readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    return this.#barrier(() => this.next.readWithGenerations!(read));
  }

  override writeGenerations(write: GenerationWrite): Promise<void> {
    return this.#barrier(() => this.next.writeGenerations!(write));
  }

  override expireEntries(request: ExpireRequest): Promise<number> {
    return this.#barrier(() => this.next.expireEntries!(request));
  }

  /**
   * Runs `run` once every call issued before it was handed to the store below, in order with
   * them: for a layer above that must act right behind them (the coherent L1 publishes its
   * invalidations behind the writes, in the same round trip).
   */
  inOrder<T>(run: () => Promise<T>): Promise<T> {
    return this.#barrier(run);
  }

  /**
   * True when this call may go straight down: the store keeps order, nothing is waiting in the
   * queue (which a direct call would overtake) and nothing is in flight (else it is under load,
   * and the call had better join the fold).
   */
  #mayLead(): boolean {
    return this.#lead && this.#inFlight === 0 && this.#queue.length === 0;
  }

  /** Counts a call that went straight down until it settles, without delaying its caller. */
  #track<T>(call: Promise<T>): Promise<T> {
    this.#inFlight++;
    call.then(this.#settled, this.#settled);
    return call;
  }

  readonly #settled = (): void => {
    this.#inFlight--;
  };

  #fold(op: StoreOp): Promise<StoreOpResult> {
    return new Promise<StoreOpResult>((resolve, reject) => {
      // The op literal was made for this call alone, so it can carry its settlers itself.
      const queued = op as Queued;
      queued.resolve = resolve;
      queued.reject = reject;
      this.#enqueue(queued);
    });
  }

  #barrier<T>(run: () => Promise<T>): Promise<T> {
    // On an ordered store nothing waiting means nothing to overtake; elsewhere a barrier waits
    // its turn even then, since a fold issued later in this tick could otherwise pass it.
    if (this.#lead && this.#queue.length === 0) return run();
    return new Promise<T>((resolve, reject) => {
      this.#enqueue({ kind: 'barrier', run, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #enqueue(item: Queued | Barrier): void {
    if (this.#queue.length === 0) this.#tick.schedule();
    this.#queue.push(item);
  }

  #flush(): void {
    const queue = this.#queue;
    this.#queue = [];
    if (this.#lead) {
      // The store keeps order: every segment goes out now, one after the other.
      for (let start = 0; start < queue.length; ) start = this.#issue(queue, start);
      return;
    }
    void this.#issueInTurn(queue);
  }

  /** Issues the segment starting at `start` (one barrier, or a run of ops); returns where the next begins. */
  #issue(queue: ReadonlyArray<Queued | Barrier>, start: number): number {
    const first = queue[start]!;
    if (first.kind === 'barrier') {
      first.run().then(first.resolve, first.reject);
      return start + 1;
    }
    let end = start + 1;
    while (end < queue.length && queue[end]!.kind !== 'barrier') end++;
    const ops = queue.slice(start, end) as Queued[];
    this.#send(ops).catch(() => undefined);
    return end;
  }

  /** On a store that may reorder calls in flight, each segment waits for the one before. */
  async #issueInTurn(queue: ReadonlyArray<Queued | Barrier>): Promise<void> {
    for (let start = 0; start < queue.length; ) {
      const first = queue[start]!;
      if (first.kind === 'barrier') {
        await first.run().then(first.resolve, first.reject);
        start++;
        continue;
      }
      let end = start + 1;
      while (end < queue.length && queue[end]!.kind !== 'barrier') end++;
      await this.#send(queue.slice(start, end) as Queued[]);
      start = end;
    }
  }

  /** Sends a run of ops in one round trip and settles each caller; never rejects. */
  #send(ops: Queued[]): Promise<void> {
    if (ops.length === 1) {
      const op = ops[0]!;
      this.#inFlight++;
      return sendOp(this.next, op).then(
        (value) => {
          this.#inFlight--;
          op.resolve(value);
        },
        (error: unknown) => {
          this.#inFlight--;
          op.reject(error);
        },
      );
    }
    const round = this.next.pipeline ? this.next.pipeline(ops) : runInOrder(this.next, ops);
    this.#inFlight += ops.length;
    return round.then(
      (results) => {
        this.#inFlight -= ops.length;
        for (let i = 0; i < ops.length; i++) {
          const result = results[i];
          if (result instanceof Error) ops[i]!.reject(result);
          else ops[i]!.resolve(result);
        }
      },
      (error: unknown) => {
        this.#inFlight -= ops.length;
        const failure = toError(error);
        for (const op of ops) op.reject(failure);
      },
    );
  }
}
