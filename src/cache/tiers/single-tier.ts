import type { DecodedEntry } from '../entry-codec.ts';
import type { RemoteReads } from './remote-reads.ts';
import type { TagSnapshot, Tier, TierRead } from './tier.ts';

/** One tier: every read goes to the store (which may itself be in process: memory, SQLite). */
export class SingleTier implements Tier {
  constructor(private readonly remote: RemoteReads) {}

  read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    return this.remote.read(key, full, tags);
  }

  readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    return this.remote.readMany(keys, fulls);
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return this.remote.snapshot(tags);
  }

  forget(): void {}
  tagsInvalidated(): void {}
  cleared(): void {}
  async close(): Promise<void> {}
}
