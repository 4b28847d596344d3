import type { DecodedEntry } from '../entry-codec.ts';
import type { RemoteReads } from './remote-reads.ts';
import type { TagSnapshot, Tier, TierRead } from './tier.ts';

/**
 * One tier: every read goes to the store (which may itself be in process: memory, SQLite). On a
 * store that answers synchronously, reads are offered without a promise too.
 */
export class SingleTier implements Tier {
  constructor(private readonly remote: RemoteReads) {
    if (!remote.synchronous) {
      this.readNow = undefined;
      this.readManyNow = undefined;
    }
  }

  read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    return this.remote.read(key, full, tags);
  }

  readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    return this.remote.readMany(keys, fulls);
  }

  readNow?(key: string, full: string, tags: readonly string[]): TierRead {
    return this.remote.readNow(key, full, tags);
  }

  readManyNow?(keys: readonly string[], fulls: readonly string[]): Array<DecodedEntry | undefined> {
    return this.remote.readManyNow(keys, fulls);
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return this.remote.snapshot(tags);
  }

  forget(): void {}
  tagsInvalidated(): void {}
  cleared(): void {}
  async close(): Promise<void> {}
}
