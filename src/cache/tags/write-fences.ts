import type { GenerationWrite, Store, TagKeys } from '../../store/types.ts';
import { WriteFenceError } from '../errors.ts';
import { checkKnownOptions, checkOptionsObject } from '../../util/known-options.ts';
import { checkTags, newEpoch, newToken } from './tag-keys.ts';

/** Options of `cache.invalidateTags`. */
export interface InvalidateOptions {
  /**
   * Stale instead of missing (default false): entries of these tags are served stale within
   * their grace while one refresh runs. Write fences are unaffected: a value filled while a
   * write lease is held is never stored.
   */
  soft?: boolean;
}

/** A write to the source of truth in progress, from {@link WriteFences.begin} (`cache.beginWrite`). */
export interface WriteFence {
  /** The tags it fences. */
  readonly tags: readonly string[];
  /**
   * Call after the source of truth committed: bumps the tags' generations again and releases the
   * write lease. Calling it again is a no-op; after `abort()` it rejects with a WriteFenceError.
   */
  commit(): Promise<void>;
  /**
   * Call after a rollback: releases the write lease without invalidating (nothing changed).
   * After `commit()` it is a no-op, so it fits a `finally` block.
   */
  abort(): Promise<void>;
}

/** What fences need from the engine: wired in src/cache/engine.ts to its reports (`StoreReports`, src/cache/roles/reports.ts), its tier and its clock. */
export interface FenceHost {
  /** Reports a failed store call (an `error` event); throws it when the cache is strict. */
  failed(operation: string, keys: readonly string[], error: unknown): void;
  /** Generations of these tags moved by this process's hand (so an L1 drops its copies at once). */
  tagsInvalidated(tags: readonly string[]): void;
  /** The cache's clock: a soft move records when it happened, for the grace of what it staled. */
  now(): number;
  /** These tags were invalidated or a write on them committed (the CDN purges, src/cdn/forwarding.ts); awaited when it returns a promise. */
  changed?(tags: readonly string[]): Promise<void> | undefined;
}

/**
 * Tag invalidation and fenced writes (docs/architecture.md#tags-leases-and-tiers).
 *
 * `begin` takes a write lease on every tag — a token with its own expiry, so that concurrent
 * writers never wait for each other — and bumps the generations; `commit` bumps them again and
 * releases the token. While any token is held on a tag, fills of entries carrying it are not
 * stored, and every entry written before the write began records an older generation: from
 * the moment the write begins until its commit is visible, the cache can only send readers to
 * the source. A writer that crashes fences its tags for at most `writeLeaseTtl`. The second
 * bump covers a writer slower than its lease: whatever a reader stored once the lease expired
 * is invalidated by the commit.
 */
export class WriteFences {
  constructor(
    private readonly path: Store,
    private readonly keysOf: (tag: string) => TagKeys,
    private readonly ttlMs: number,
    private readonly host: FenceHost,
  ) {}

  /**
   * `cache.invalidateTags`: bumps every tag's generation, hard (entries become misses) or soft
   * (they become stale, see TagKeys.soft); resolves false when the store failed.
   */
  async invalidate(tags: readonly string[], options?: InvalidateOptions): Promise<boolean> {
    const names = checkTags(tags, 'invalidateTags');
    if (options !== undefined) {
      checkOptionsObject(options, 'cachette: invalidateTags');
      checkKnownOptions(options, ['soft'] satisfies ReadonlyArray<keyof InvalidateOptions>, 'cachette: invalidateTags');
      if (options.soft !== undefined && typeof options.soft !== 'boolean') throw new TypeError(`cachette: invalidateTags: "soft" must be a boolean, got ${typeof options.soft}`);
    }
    if (names.length === 0) return true;
    const written = await this.#write(options?.soft === true ? 'soft' : 'bump', names, undefined);
    await this.host.changed?.(names);
    return written;
  }

  /** `cache.beginWrite`. */
  async begin(tags: readonly string[]): Promise<WriteFence> {
    const names = checkTags(tags, 'beginWrite');
    if (names.length === 0) throw new TypeError('cachette: beginWrite needs at least one tag');
    const token = newToken();
    await this.#write('hold', names, token);
    let ended: Promise<void> | undefined;
    let committed = false;
    return {
      tags: names,
      commit: () => {
        if (ended && !committed) return Promise.reject(new WriteFenceError(names, 'commit() after abort(): the write was declared rolled back'));
        committed = true;
        ended ??= this.#write('commit', names, token).then(() => this.host.changed?.(names));
        return ended;
      },
      abort: () => {
        ended ??= this.#write('release', names, token).then(() => undefined);
        return ended;
      },
    };
  }

  /**
   * `cache.mutate`: begin, run `fn`, commit. When `fn` throws, the tags are still invalidated
   * (the source may have committed before the error) and the error is rethrown.
   */
  async mutate<T>(tags: readonly string[], fn: () => T | Promise<T>): Promise<T> {
    if (typeof fn !== 'function') throw new TypeError('cachette: mutate(tags, fn) needs a function');
    const fence = await this.begin(tags);
    try {
      return await fn();
    } finally {
      await fence.commit();
    }
  }

  async #write(action: GenerationWrite['action'], tags: readonly string[], token: string | undefined): Promise<boolean> {
    const keys = tags.map(this.keysOf);
    try {
      await this.path.writeGenerations!({ action, tags: keys, epoch: newEpoch(), token, ttlMs: this.ttlMs, now: this.host.now() });
      return true;
    } catch (error) {
      this.host.failed(
        'writeGenerations',
        keys.map((tagKey) => tagKey.generation),
        error,
      );
      return false;
    } finally {
      if (action !== 'release') this.host.tagsInvalidated(tags);
    }
  }
}
