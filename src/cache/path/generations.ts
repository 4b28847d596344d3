import type { GenerationRead, GenerationReadResult, GenerationWrite, Store, TagKeys, TagState } from '../../store/types.ts';
import { counterValue } from '../../store/layout/counter.ts';
import { softMovesIn, softRecord } from '../../store/layout/soft-record.ts';
import { newEpoch } from '../tags/tag-keys.ts';
import { StoreLayer } from './layer.ts';
import { TickFlush } from '../../store/tick-flush.ts';

/**
 * A read of tags alone shared by the reads of one tick ({@link GenerationLayer.readTagStates}).
 * `answer` or `failure` is set the moment the store answers, before any callback of a caller
 * runs, so a caller whose entry arrived first can use it without waiting one more microtask.
 */
export interface SharedTagRead {
  promise: Promise<GenerationReadResult>;
  answer: GenerationReadResult | undefined;
  failure: { readonly error: unknown } | undefined;
}

/** One node of the trie of shared reads of tags: the read of the tags up to here, and longer tag sets. */
interface SharedRead {
  read: SharedTagRead | undefined;
  longer: Map<TagKeys, SharedRead> | undefined;
}

/** A read waiting for the end of the tick, with its caller's promise. */
interface PendingRead {
  read: GenerationRead;
  resolve(result: GenerationReadResult): void;
  reject(error: unknown): void;
}

const NO_KEYS: readonly string[] = Object.freeze([]);
const ignore = (): void => undefined;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The tag-generation layer of the store path (docs/architecture.md#tags-leases-and-tiers).
 * Above it, every store offers {@link Store.readWithGenerations} and {@link Store.writeGenerations}:
 *
 * - on a store that has them (a script on Valkey and Upstash, a transaction on SQLite, one
 *   synchronous step in memory), the tagged reads of one tick are merged into one call: fifty
 *   concurrent tagged gets read each key and each tag once. Under load on a store that keeps
 *   the order of calls in flight (one connection: {@link readsApart}), the tiers read a tagged
 *   entry by a plain get, folded into the tick's MGET, beside {@link readTagStates}, which every
 *   read of the same tags in the tick shares: the server runs its native MGET for the entries
 *   instead of one GET per entry inside the script (~1.2 µs each there), the script reads each
 *   tag of the tick once, and a read adds no work for tags another read of the tick already
 *   asked for. A lone read goes as the one script: one command instead of two;
 * - on a store without them (Workers KV, third-party stores), reads become one getMany of the
 *   entries and the counters (plus a set-if-absent for a counter that is missing), and writes
 *   become increments. Such a store has no write leases: {@link fences} is false and fenced
 *   writes there only bump generations (README, "Tags and fenced writes").
 */
export class GenerationLayer extends StoreLayer {
  /** True when the store below holds write leases itself, so that fills can be fenced. */
  readonly fences: boolean;
  readonly #native: boolean;
  /** The store keeps the order of calls in flight and runs the scripts (see {@link readsApart}). */
  readonly #orderedNative: boolean;
  /** Merged reads sent and not answered yet. */
  #inFlight = 0;
  /**
   * Reads of tags alone not sent yet, by tag set: a read of the same tags joins one. A trie on
   * the tags' key objects (the tiers keep one per tag), so a lookup builds no string.
   */
  readonly #shared = new Map<TagKeys, SharedRead>();
  #pending: PendingRead[] = [];
  /** Reads asked for since the last flush, joined ones included: the tick is not over while they keep coming. */
  #asked = 0;
  readonly #tick = new TickFlush(
    () => this.#asked,
    () => this.#flush(),
  );

  constructor(next: Store) {
    super(next);
    this.#native = typeof next.readWithGenerations === 'function' && typeof next.writeGenerations === 'function';
    this.fences = this.#native;
    this.#orderedNative = next.ordered === true && this.#native;
    // Offered whatever the store below has (StoreLayer hid them when it lacks them).
    this.readWithGenerations = GenerationLayer.prototype.readWithGenerations;
    this.writeGenerations = GenerationLayer.prototype.writeGenerations;
    this.forwardSyncReads();
    // A synchronous tagged read needs the store's own one; the fallback reads in several steps.
    if (!this.#native) this.readWithGenerationsSync = undefined;
  }

  /**
   * True when a tagged read issued now is best read apart: its entry by a plain get beside
   * {@link readTagStates}, in the same round trip (see above). That is on an ordered store while
   * other tagged reads gather or are in flight; a lone read goes as the one script.
   */
  get readsApart(): boolean {
    return this.#orderedNative && (this.#pending.length > 0 || this.#inFlight > 0);
  }

  override readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    return new Promise<GenerationReadResult>((resolve, reject) => this.#queue({ read, resolve, reject }));
  }

  #queue(pending: PendingRead): void {
    if (this.#pending.length === 0) this.#tick.schedule();
    this.#asked++;
    this.#pending.push(pending);
  }

  /**
   * The state of `tags` alone, read with the other reads of the tick. Reads of the same tags
   * issued before that read goes out share it: their callers read the same tags at the same
   * moment, so one answer serves them all, and no read ever shares one that was already sent.
   */
  readTagStates(tags: readonly TagKeys[]): SharedTagRead {
    this.#asked++;
    let level = this.#shared;
    let node: SharedRead | undefined;
    for (let i = 0; i < tags.length; i++) {
      if (i > 0) level = node!.longer ??= new Map();
      node = level.get(tags[i]!);
      if (node === undefined) level.set(tags[i]!, (node = { read: undefined, longer: undefined }));
    }
    const found = node ?? { read: undefined, longer: undefined };
    found.read ??= this.#sharedRead(tags);
    return found.read;
  }

  #sharedRead(tags: readonly TagKeys[]): SharedTagRead {
    const shared: SharedTagRead = { answer: undefined, failure: undefined, promise: undefined as unknown as Promise<GenerationReadResult> };
    shared.promise = new Promise<GenerationReadResult>((resolve, reject) => {
      // Answered before any caller's callback runs: a caller whose entry arrives first finds it at once.
      this.#queue({
        read: { keys: NO_KEYS, tags, epoch: newEpoch() },
        resolve: (result) => {
          shared.answer = result;
          resolve(result);
        },
        reject: (error) => {
          shared.failure = { error };
          reject(error);
        },
      });
    });
    // Each caller handles the failure on its own chain; this keeps an early one from going unhandled.
    shared.promise.catch(ignore);
    return shared;
  }

  override writeGenerations(write: GenerationWrite): Promise<void> {
    if (this.#native) return this.next.writeGenerations!(write);
    return this.#bumpByIncrement(write);
  }

  /** Sends the reads of the tick (see src/store/tick-flush.ts for when). */
  #flush(): void {
    const pending = this.#pending;
    this.#pending = [];
    this.#asked = 0;
    this.#shared.clear();
    this.#inFlight++;
    if (pending.length === 1) {
      const only = pending[0]!;
      this.#send(only.read).then(only.resolve, only.reject).finally(this.#answered);
      return;
    }
    this.#sendMerged(pending).finally(this.#answered);
  }

  readonly #answered = (): void => {
    this.#inFlight--;
  };

  /** One store call for every read of the tick: each key (with the same known prefix) and each tag once. */
  #sendMerged(pending: PendingRead[]): Promise<void> {
    const keys: string[] = [];
    const prefixes: Array<Uint8Array | undefined> = [];
    const keySlots = new Map<string, number>();
    const tags: TagKeys[] = [];
    const tagSlots = new Map<string, number>();
    let anyPrefix = false;
    // Where each read's keys and tags sit in the merged read, all reads' slots in two flat lists.
    const keyAt: number[] = [];
    const tagAt: number[] = [];
    for (const { read } of pending) {
      for (let i = 0; i < read.keys.length; i++) {
        const key = read.keys[i]!;
        const prefix = read.knownPrefixes?.[i];
        // Keys read with different known prefixes keep their own slots: one may want the value back.
        const id = prefix === undefined ? key : `${key}\u0000${String.fromCharCode(...prefix)}`;
        let at = keySlots.get(id);
        if (at === undefined) {
          at = keys.push(key) - 1;
          prefixes.push(prefix);
          keySlots.set(id, at);
          if (prefix !== undefined) anyPrefix = true;
        }
        keyAt.push(at);
      }
      for (const tag of read.tags) {
        let at = tagSlots.get(tag.generation);
        if (at === undefined) {
          at = tags.push(tag) - 1;
          tagSlots.set(tag.generation, at);
        }
        tagAt.push(at);
      }
    }
    const merged: GenerationRead = { keys, knownPrefixes: anyPrefix ? prefixes : undefined, tags, epoch: pending[0]!.read.epoch };
    return this.#send(merged).then(
      (result) => {
        let keyFrom = 0;
        let tagFrom = 0;
        for (const { read, resolve } of pending) {
          const values = new Array<Uint8Array | 'unchanged' | undefined>(read.keys.length);
          for (let i = 0; i < values.length; i++) values[i] = result.values[keyAt[keyFrom++]!];
          const states = new Array<TagState>(read.tags.length);
          for (let i = 0; i < states.length; i++) states[i] = result.tags[tagAt[tagFrom++]!]!;
          resolve({ values, tags: states });
        }
      },
      (error: unknown) => {
        for (const { reject } of pending) reject(error);
      },
    );
  }

  #send(read: GenerationRead): Promise<GenerationReadResult> {
    try {
      if (!this.#native) return this.#readByGetMany(read);
      return this.next.readWithGenerations!(read);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Without the capability: one getMany of entries and counters; a missing counter is created at the epoch. */
  async #readByGetMany(read: GenerationRead): Promise<GenerationReadResult> {
    const counterKeys = read.tags.map((tag) => tag.generation);
    const softKeys = read.tags.map((tag) => tag.soft);
    // The soft records travel in the same getMany: a tagged read stays one round trip.
    const got = await this.next.getMany([...read.keys, ...counterKeys, ...softKeys]);
    const records = got.slice(read.keys.length + counterKeys.length);
    const values = read.keys.map((_, i): Uint8Array | 'unchanged' | undefined => {
      const value = got[i];
      const known = read.knownPrefixes?.[i];
      return value && known && startsWith(value, known) ? 'unchanged' : value;
    });
    const counters = got.slice(read.keys.length, read.keys.length + counterKeys.length);
    const missing = counters.flatMap((bytes, i) => (bytes === undefined ? [i] : []));
    if (missing.length > 0) {
      const epoch = encoder.encode(String(read.epoch));
      // Set-if-absent where the store can: two readers creating one counter agree on one epoch.
      const add = this.next.add?.bind(this.next);
      const created = await Promise.all(missing.map((i) => (add ? add(counterKeys[i]!, epoch) : this.next.set(counterKeys[i]!, epoch).then(() => true))));
      const lost = missing.filter((_, j) => !created[j]);
      const reread = lost.length > 0 ? await this.next.getMany(lost.map((i) => counterKeys[i]!)) : [];
      for (const i of missing) counters[i] = epoch;
      for (let j = 0; j < lost.length; j++) counters[lost[j]!] = reread[j];
    }
    const tags = counters.map((bytes, i): TagState => {
      const generation = parseGeneration(bytes, counterKeys[i]!);
      const soft = softMovesIn(records[i], generation);
      return soft === undefined ? { generation, fenced: false } : { generation, fenced: false, soft };
    });
    return { values, tags };
  }

  /**
   * Without the capability: an increment per tag. An increment that answers 1 created the
   * counter (generations never hold small numbers otherwise), so it is moved to the epoch. A
   * soft move then reads and rewrites the tag's soft record: not atomic, but every record
   * written is true of the counter's history (it names the increment's own result), so a race
   * can only lose a record, which turns that soft move into a hard one (misses, never a stale
   * value served past a hard move).
   */
  async #bumpByIncrement(write: GenerationWrite): Promise<void> {
    if (write.action === 'release') return;
    await Promise.all(
      write.tags.map(async (tag) => {
        const generation = await this.next.incr(tag.generation, 1);
        if (generation === 1) await this.next.incr(tag.generation, write.epoch - 1);
        else if (write.action === 'soft') await this.next.set(tag.soft, softRecord(await this.next.get(tag.soft), generation - 1, write.now ?? 0));
      }),
    );
  }
}

function startsWith(value: Uint8Array, prefix: Uint8Array): boolean {
  if (value.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (value[i] !== prefix[i]) return false;
  return true;
}

/** A counter read back: anything but a safe integer is an error, never a guess. */
function parseGeneration(bytes: Uint8Array | undefined, key: string): number {
  const generation = counterValue(bytes);
  if (generation === undefined) throw new TypeError(`the generation counter "${key}" holds "${bytes === undefined ? '' : decoder.decode(bytes).slice(0, 40)}", not an integer`);
  return generation;
}
