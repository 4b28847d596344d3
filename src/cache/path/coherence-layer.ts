import type { Coherence, ExpireRequest, GenerationWrite, Store, StoreEntry } from '../../store/types.ts';
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

  /** `write`, settled once its invalidation is done; its own failure wins over the invalidation's. `removed`: a delete (watchers are told). */
  #written<T>(keys: readonly string[] | undefined, write: Promise<T>, removed = false): Promise<T> {
    const invalidated = this.inOrder(() => this.bus.invalidate(keys, write, removed));
    return write.then(
      (value) => invalidated.then(() => value),
      (error: unknown) => {
        const fail = () => Promise.reject(error);
        return invalidated.then(fail, fail);
      },
    );
  }
}
