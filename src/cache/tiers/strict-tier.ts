import type { DecodedEntry } from '../entry-codec.ts';
import type { L1Copies } from './l1-copies.ts';
import type { RemoteRead, RemoteReads } from './remote-reads.ts';
import { readEach, type TagSnapshot, type Tier, type TierRead } from './tier.ts';

/**
 * L1 with `consistency: 'strict'`: a copy in memory is served only after the store confirms,
 * in one small round trip, that it is still the stored version and that every tag it records
 * is still at its generation. The store compares the copy's first bytes server-side and
 * answers "unchanged" without sending the value, so a confirmed hit transfers and decodes
 * nothing; a changed entry comes back in the same round trip. Serves exactly what the store
 * would: no staleness window at all.
 */
export class StrictTier implements Tier {
  constructor(
    protected readonly remote: RemoteReads,
    protected readonly copies: L1Copies,
  ) {}

  read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    return this.validate(key, full, tags);
  }

  /** Reads through the store, confirming the copy held; resolves what the store answered, its bytes included (none when the copy was confirmed unchanged). */
  protected async validate(key: string, full: string, tags: readonly string[]): Promise<RemoteRead> {
    const copy = this.copies.get(full);
    const found =
      copy === undefined
        ? await this.remote.read(key, full, tags)
        : await this.remote.read(
            key,
            full,
            tags,
            copy,
            copy.entry.tags.map((recorded) => recorded.tag),
          );
    if (found.entry === undefined) this.copies.delete(full);
    else if (found.bytes !== undefined) this.copies.set(full, found.bytes, found.entry);
    return found;
  }

  /** Each key validated like {@link read}; the tick's reads fold into one store call. */
  readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    return readEach(this, keys, fulls);
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return this.remote.snapshot(tags);
  }

  forget(fulls: readonly string[]): void {
    for (const full of fulls) this.copies.delete(full);
  }

  tagsInvalidated(tags: readonly string[]): void {
    for (const tag of tags) this.copies.deleteTagged(tag);
  }

  cleared(): void {
    this.copies.clear();
  }

  async close(): Promise<void> {
    this.copies.clear();
  }
}
