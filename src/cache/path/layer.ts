import type {
  Coherence,
  CoherenceListener,
  CoherenceOptions,
  ExpireRequest,
  GenerationRead,
  GenerationReadResult,
  GenerationWrite,
  InvalidationListener,
  KeyPage,
  Store,
  StoreEntry,
  StoreOp,
  StoreOpResult,
  Tracking,
} from '../../store/types.ts';

/** The optional store methods a layer offers only when the store beneath it does. */
const CAPABILITIES = ['setEntry', 'pipeline', 'add', 'compareAndDelete', 'clear', 'keys', 'readWithGenerations', 'writeGenerations', 'expireEntries', 'track', 'coherence'] as const;
/** The synchronous reads: offered only by layers that say they keep them (see {@link StoreLayer.forwardSyncReads}). */
const SYNC_READS = ['getSync', 'getManySync', 'readWithGenerationsSync'] as const;

/**
 * One layer of the engine's store path (docs/architecture.md#the-engine). A layer is itself a
 * {@link Store} wrapping the store (or layer) beneath it, so layers stack in any order, a test
 * can put a counting or failing store under any of them, and each can be measured alone. This
 * base passes every call through; a layer overrides the calls it acts on.
 */
export abstract class StoreLayer implements Store {
  readonly name: string;
  readonly address: string | undefined;
  readonly local: boolean;
  readonly ordered: boolean;
  readonly compressionThreshold: number | undefined;

  constructor(protected readonly next: Store) {
    this.name = next.name;
    this.address = next.address;
    this.local = next.local === true;
    this.ordered = next.ordered === true;
    this.compressionThreshold = next.compressionThreshold;
    // A capability the store beneath lacks must be absent here too: the engine tests for it.
    for (const capability of CAPABILITIES) {
      if (typeof next[capability] !== 'function') (this as Record<string, unknown>)[capability] = undefined;
    }
    // A layer that acts on reads (folds, counts or fails them) must not be bypassed by a
    // synchronous read it knows nothing of: none is offered unless the layer asks for it.
    for (const capability of SYNC_READS) (this as Record<string, unknown>)[capability] = undefined;
  }

  /** Offers the synchronous reads the store beneath has: for layers that keep their meaning. */
  protected forwardSyncReads(): void {
    for (const capability of SYNC_READS) {
      if (typeof this.next[capability] === 'function') delete (this as Record<string, unknown>)[capability];
    }
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.next.get(key);
  }

  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    return this.next.getMany(keys);
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    return this.next.set(key, value, ttlMs);
  }

  setMany(entries: readonly StoreEntry[]): Promise<void> {
    return this.next.setMany(entries);
  }

  /**
   * Goes down as it is through a layer that passes `set` through; a layer that acts on `set`
   * and does not override this sends the entry through its own `set` (its bytes made), so that
   * no layer's work on writes is skipped.
   */
  setEntry?(entry: StoreEntry): Promise<void> {
    return this.set === StoreLayer.prototype.set ? this.next.setEntry!(entry) : this.set(entry.key, entry.value, entry.ttlMs);
  }

  delete(keys: readonly string[]): Promise<number> {
    return this.next.delete(keys);
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    return this.next.incr(key, by, ttlMs);
  }

  pipeline?(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    return this.next.pipeline!(ops);
  }

  add?(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    return this.next.add!(key, value, ttlMs);
  }

  compareAndDelete?(key: string, expected: Uint8Array): Promise<boolean> {
    return this.next.compareAndDelete!(key, expected);
  }

  clear?(prefix: string): Promise<void> {
    return this.next.clear!(prefix);
  }

  keys?(prefix: string, cursor?: string): Promise<KeyPage> {
    return this.next.keys!(prefix, cursor);
  }

  readWithGenerations?(read: GenerationRead): Promise<GenerationReadResult> {
    return this.next.readWithGenerations!(read);
  }

  writeGenerations?(write: GenerationWrite): Promise<void> {
    return this.next.writeGenerations!(write);
  }

  expireEntries?(request: ExpireRequest): Promise<number> {
    return this.next.expireEntries!(request);
  }

  getSync?(key: string): Uint8Array | undefined {
    return this.next.getSync!(key);
  }

  getManySync?(keys: readonly string[]): Array<Uint8Array | undefined> {
    return this.next.getManySync!(keys);
  }

  readWithGenerationsSync?(read: GenerationRead): GenerationReadResult {
    return this.next.readWithGenerationsSync!(read);
  }

  track?(listener: InvalidationListener): Tracking {
    return this.next.track!(listener);
  }

  coherence?(listener: CoherenceListener, options: CoherenceOptions): Coherence {
    return this.next.coherence!(listener, options);
  }

  close(): Promise<void> {
    return this.next.close();
  }
}
