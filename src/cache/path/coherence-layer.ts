import type { Coherence, ExpireRequest, GenerationWrite, Store, StoreEntry } from '../../store/types.ts';
import { MAX_MESSAGE_CHARS, MAX_MESSAGE_KEYS } from '../../store/bus/format.ts';
import { TickFlush } from '../../store/tick-flush.ts';
import { tagOfGenerationKey } from '../key-space.ts';
import { StoreLayer } from './layer.ts';

/** Runs a call once every call issued before it was handed to the store (the batcher's order), or at once without a batcher. */
export type InOrder = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * The write side of the coherent L1 (src/cache/tiers/coherent-tier.ts), in the store path above
 * the batcher: every write of entries or tag generations is followed, in order, by its
 * invalidation on the store's coherence bus, and resolves (or rejects, with the write's own
 * error) only once that invalidation was acknowledged by every other process that may hold
 * what the write changed, or their leases ran out. Reads pass through untouched; so do the
 * writes that no copy depends on (the caller's counters, fill leases, a fence's release). An
 * increment of one of the cache's tag generations (a store without writeGenerations bumps them
 * so) is invalidated like any write.
 *
 * The writes of one tick share one invalidation, issued once the tick's calls are all in
 * (src/store/tick-flush.ts), behind all of them: one call in order instead of one per write,
 * which would cut the tick's fold into a round of its own for every write (no MSET, the reads
 * split around each publish). Publishing later than its write is safe: a write returns only
 * once its invalidation was acknowledged, and a holder's read of the old value is kept only
 * when no invalidation of what it read came after the read was issued. A group holds no more
 * keys than one message may name (format.ts): past that, the group so far is issued and the
 * next one begins, so that many writes in one tick never become an invalidation of everything.
 */
export class CoherenceLayer extends StoreLayer {
  constructor(
    next: Store,
    private readonly bus: Coherence,
    private readonly inOrder: InOrder,
    private readonly prefix: string,
  ) {
    super(next);
    this.forwardSyncReads();
  }

  /** The invalidation the writes of this tick share, until it is issued. */
  #group: TickInvalidation | undefined;
  /** Whether {@link #tick} is waiting for the tick to go quiet. */
  #scheduled = false;
  readonly #tick = new TickFlush(
    () => this.#group?.writes.length ?? 0,
    () => {
      this.#scheduled = false;
      this.#issue();
    },
  );

  override set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    return this.#written([key], this.next.set(key, value, ttlMs));
  }

  override setMany(entries: readonly StoreEntry[]): Promise<void> {
    return this.#written(
      entries.map((entry) => entry.key),
      this.next.setMany(entries),
    );
  }

  override delete(keys: readonly string[]): Promise<number> {
    return this.#written(keys, this.next.delete(keys), true);
  }

  override incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const done = this.next.incr(key, by, ttlMs);
    return tagOfGenerationKey(this.prefix, key) === undefined ? done : this.#written([key], done);
  }

  override writeGenerations(write: GenerationWrite): Promise<void> {
    const done = this.next.writeGenerations!(write);
    // A release changes no generation: nothing read before it is outdated by it.
    if (write.action === 'release') return done;
    return this.#written(
      write.tags.map((tag) => tag.generation),
      done,
    );
  }

  override expireEntries(request: ExpireRequest): Promise<number> {
    return this.#written(request.keys, this.next.expireEntries!(request));
  }

  override clear(prefix: string): Promise<void> {
    return this.#written(undefined, this.next.clear!(prefix));
  }

  /** `write`, settled once its invalidation (the tick's) is done; its own failure wins over the invalidation's. `removed`: a delete (watchers are told). */
  #written<T>(keys: readonly string[] | undefined, write: Promise<T>, removed = false): Promise<T> {
    // A tick's deletes and other writes are told apart (`removed`): each kind shares its own invalidation.
    if (this.#group !== undefined && (this.#group.removed !== removed || !this.#group.fits(keys))) this.#issue();
    const group = (this.#group ??= new TickInvalidation(removed));
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#tick.schedule();
    }
    group.add(keys, write);
    const invalidated = group.done;
    return write.then(
      (value) => invalidated.then(() => value),
      (error: unknown) => {
        const fail = () => Promise.reject(error);
        return invalidated.then(fail, fail);
      },
    );
  }

  /** Issues the tick's invalidation, in order behind every write it covers. */
  #issue(): void {
    const group = this.#group;
    if (group === undefined) return;
    this.#group = undefined;
    const keys = group.keys;
    const writes = group.writes;
    const removed = group.removed;
    group.settle(this.inOrder(() => this.bus.invalidate(keys, writes.length === 1 ? writes[0]! : Promise.allSettled(writes), removed)));
  }
}

/** The invalidation shared by the writes of one tick: their keys (undefined once one of them changes anything), and its outcome. */
class TickInvalidation {
  keys: string[] | undefined = [];
  #chars = 0;
  readonly writes: Array<Promise<unknown>> = [];
  readonly done: Promise<void>;
  settle!: (outcome: Promise<void>) => void;

  constructor(readonly removed: boolean) {
    this.done = new Promise<void>((resolve) => (this.settle = resolve));
  }

  /** True when `keys` join this group within what one message may name (or when this group invalidates everything already). */
  fits(keys: readonly string[] | undefined): boolean {
    if (this.keys === undefined || keys === undefined) return true;
    return this.keys.length + keys.length <= MAX_MESSAGE_KEYS && this.#chars + charsOf(keys) <= MAX_MESSAGE_CHARS;
  }

  add(keys: readonly string[] | undefined, write: Promise<unknown>): void {
    this.writes.push(write);
    if (keys === undefined) this.keys = undefined;
    else if (this.keys !== undefined) {
      for (const key of keys) this.keys.push(key);
      this.#chars += charsOf(keys);
    }
  }
}

function charsOf(keys: readonly string[]): number {
  let chars = 0;
  for (const key of keys) chars += key.length;
  return chars;
}
