/**
 * What the two Valkey stores (one server, a cluster) share: the store contract on top of
 * encoded commands. Every call — a lone get or a tick's pipeline — is one {@link Round}: its ops
 * are split into runs (src/store/op-runs.ts), each run becomes native commands encoded straight
 * into the channel of the server that holds its keys, every channel is flushed once (one socket
 * write per server), and the replies fill the round's result slots as they arrive.
 *
 * A subclass says where a key lives ({@link route}), whether the store is known to be
 * unreachable ({@link unreachable}), how runs of reads and writes become commands (one server takes one MGET for
 * a whole run; a cluster needs one per slot), and how to flush.
 */
import { StoreClosedError, type StoreError, type StoreUnavailableError } from '../../src/store/errors.ts';
import { runEnd, runKind, type DeleteOp, type IncrOp } from '../../src/store/op-runs.ts';
import type { ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';
import { positiveMs } from '../shared/redis-protocol.ts';
import type { RespValue } from './resp/parser.ts';
import { expectOn, type Route } from './channel.ts';
import { encodeIncrBy, encodeSetIfAbsent, pieces } from './commands.ts';
import { COMPRESSION_THRESHOLD } from './compression.ts';
import { joinRead, routeKeyOf, sendReadWithGenerations, sendWriteGenerations, splitRead, splitWrite, type ReadPart } from './generations.ts';
import { CANNOT_ANSWER, createdReply, integerReply, isOkOrNil } from './replies.ts';
import { CountSink, DecodeSink, Round, WriteSink } from './round.ts';
import { COMPARE_AND_DELETE, EXPIRE_ENTRIES, INCR_WITH_TTL, ScriptSupport, sendScript } from './scripts.ts';

const ZERO = new TextEncoder().encode('0');

/** COMPARE_AND_DELETE's reply as "the key held the token and is gone". */
const deletedReply = (reply: RespValue) => (reply === 1 ? true : reply === 0 ? false : CANNOT_ANSWER);

/** The store contract over encoded commands; see the module comment. */
export abstract class ValkeyStoreBase implements Store {
  abstract readonly name: string;
  abstract readonly address: string;
  readonly ordered = true;
  readonly compressionThreshold = COMPRESSION_THRESHOLD;
  /** Whether the server takes scripts: once it refused one, TTL'd increments go as two plain commands. */
  protected readonly scripts = new ScriptSupport();

  /** Names the store in the errors it makes ("valkey 127.0.0.1:6379"). */
  protected abstract get where(): string;

  /** Why every call must fail at once because the server is known to be unreachable, or undefined. */
  protected abstract unreachable(): StoreUnavailableError | undefined;

  /** Closes the connections the store opened (close() calls it once). */
  protected abstract closeConnections(): Promise<void>;

  /** The route of `key`'s commands, or why its server is known to be down. */
  protected abstract route(key: string): Route | StoreUnavailableError;

  /** Sends the reads `ops[from, to)`. */
  protected abstract sendReads(round: Round, ops: readonly StoreOp[], from: number, to: number): void;

  /** Sends the writes `ops[from, to)`. */
  protected abstract sendWrites(round: Round, ops: readonly StoreOp[], from: number, to: number): void;

  /** Sends delete op `at`: its own count, DEL per server (or per slot). */
  protected abstract sendDelete(round: Round, at: number, op: DeleteOp): void;

  /** Writes everything encoded during the call, one write per server. */
  protected abstract flush(): void;

  /** Set by the first close(): from then on every call fails with a {@link StoreClosedError}. */
  #closing: Promise<void> | undefined;

  /** Closes the connections; every call after it rejects with a {@link StoreClosedError}, never as an unreachable server. */
  close(): Promise<void> {
    this.#closing ??= this.closeConnections();
    return this.#closing;
  }

  /** Why every call must fail at once: the store is closed, or its server known to be unreachable; else undefined. */
  protected down(): StoreError | undefined {
    return this.#closing === undefined ? this.unreachable() : new StoreClosedError(this.where);
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#send([{ kind: 'get', key }], true);
  }

  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.#send([{ kind: 'getMany', keys }], true);
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    return this.#send([{ kind: 'set', key, value, ttlMs }], true);
  }

  /** {@link set} of one entry: a text entry's parts are written into the command, never made into bytes first. */
  setEntry(entry: StoreEntry): Promise<void> {
    return this.#send([{ kind: 'setMany', entries: [entry] }], true);
  }

  setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return this.#send([{ kind: 'setMany', entries }], true);
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    return this.#send([{ kind: 'delete', keys }], true);
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    return this.#send([{ kind: 'incr', key, by, ttlMs }], true);
  }

  pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    return this.#send(ops, false);
  }

  /** SET NX (with PX): true when this call created the key. */
  add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    return this.#lone(key, (route, round) => {
      const start = route.channel.encoder.size;
      encodeSetIfAbsent(route.channel.encoder, key, value, ttlMs);
      expectOn(route, new DecodeSink('set', round, 0, createdReply), start);
    });
  }

  /** One script: deletes the key only while it holds `expected`. */
  compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    return this.#lone(key, (route, round) => {
      sendScript(route, round, 0, this.scripts, COMPARE_AND_DELETE, [key], [expected], deletedReply);
    });
  }

  /**
   * One script per group of keys that may share one ({@link scriptGroups}), all sent in one
   * write: each fresh entry's header rewritten in place (SETRANGE keeps the rest and the TTL,
   * which PEXPIRE then sets to the grace), atomically per key (see EXPIRE_ENTRIES_LUA).
   */
  async expireEntries(request: ExpireRequest): Promise<number> {
    if (request.keys.length === 0) return 0;
    const now = String(request.now);
    const groups = this.scriptGroups(request.keys);
    const counts = await this.#perScript(
      groups,
      (group) => group[0]!,
      (route, round, at, group) => sendScript(route, round, at, this.scripts, EXPIRE_ENTRIES, group, [now], integerReply),
    );
    return (counts as number[]).reduce((sum, count) => sum + count, 0);
  }

  /**
   * One script per slot its keys and tags fall in (one on a server: the tagged read is one
   * command), all sent in one write: see generations.ts.
   */
  readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    const parts = splitRead(read, (key) => this.scriptSlot(key));
    const send = (route: Route, round: Round, at: number, part: ReadPart) => sendReadWithGenerations(route, round, at, this.scripts, part.read);
    if (parts.length === 1) return this.lone(this.route(routeKeyOf(read)), (route, round) => send(route, round, 0, parts[0]!));
    return this.#perScript(parts, (part) => routeKeyOf(part.read), send).then((answers) => joinRead(read, parts, answers as GenerationReadResult[]));
  }

  /** One script per slot of the tags (one on a server): bumps, holds or releases, atomically per tag. */
  writeGenerations(write: GenerationWrite): Promise<void> {
    if (write.tags.length === 0) return Promise.resolve();
    const writes = splitWrite(write, (key) => this.scriptSlot(key));
    const send = (route: Route, round: Round, at: number, part: GenerationWrite) => sendWriteGenerations(route, round, at, this.scripts, part);
    if (writes.length === 1) return this.lone(this.route(write.tags[0]!.generation), (route, round) => send(route, round, 0, write));
    return this.#perScript(writes, (part) => part.tags[0]!.generation, send).then(() => undefined);
  }

  /** The slot that decides which keys one script may name together: every key has the same one on a server. */
  protected scriptSlot(_key: string): number {
    return 0;
  }

  /** Keys that one script may name together: up to MAX_KEYS_PER_COMMAND of them on one server; on a cluster, of one slot. */
  protected scriptGroups(keys: readonly string[]): ReadonlyArray<readonly string[]> {
    return pieces(keys);
  }

  /**
   * One command alone, on `key`'s route: `issue` encodes it and expects its reply as op 0 of the
   * round; the round rejects with the op's failure.
   */
  protected lone<T>(route: Route | StoreUnavailableError, issue: (route: Route, round: Round) => void): Promise<T> {
    const down = this.down();
    if (down) return Promise.reject(down);
    const round = new Round(1, true, this.where);
    if (route instanceof Error) round.fail(0, 1, route);
    else issue(route, round);
    this.flush();
    round.seal();
    return round.promise;
  }

  #lone<T>(key: string, issue: (route: Route, round: Round) => void): Promise<T> {
    return this.lone(this.route(key), issue);
  }

  /** One round for `ops`: every run encoded, every channel flushed once. */
  #send<T>(ops: readonly StoreOp[], lone: boolean): Promise<T> {
    const down = this.down();
    if (down) return Promise.reject(down);
    const round = new Round(ops.length, lone, this.where);
    for (let start = 0; start < ops.length; ) {
      const end = runEnd(ops, start);
      switch (runKind(ops[start]!)) {
        case 'read':
          this.sendReads(round, ops, start, end);
          break;
        case 'write':
          this.sendWrites(round, ops, start, end);
          break;
        case 'delete':
          for (let i = start; i < end; i++) this.sendDelete(round, i, ops[i] as DeleteOp);
          break;
        case 'incr':
          for (let i = start; i < end; i++) this.#sendIncr(round, i, ops[i] as IncrOp);
          break;
      }
      start = end;
    }
    this.flush();
    round.seal();
    return round.promise;
  }

  /**
   * One script per item of `items`, each on the route of its `keyOf`, all in one round (one
   * write per server): resolves with their results in order, or rejects with the first failure.
   */
  async #perScript<T>(items: readonly T[], keyOf: (item: T) => string, send: (route: Route, round: Round, at: number, item: T) => void): Promise<unknown[]> {
    const down = this.down();
    if (down) throw down;
    const round = new Round(items.length, false, this.where);
    for (let at = 0; at < items.length; at++) {
      const route = this.route(keyOf(items[at]!));
      if (route instanceof Error) round.fail(at, at + 1, route);
      else send(route, round, at, items[at]!);
    }
    this.flush();
    round.seal();
    const results = (await round.promise) as unknown[];
    for (const result of results) if (result instanceof Error) throw result;
    return results;
  }

  /**
   * One increment, op `at`: INCRBY; with a TTL, the script that gives the counter its TTL only
   * when this call creates it — atomically, since a counter created by INCRBY after its TTL'd
   * predecessor expired (or was deleted) between two plain commands would never expire. A
   * server that refuses scripts gets the two plain commands (SET NX PX, INCRBY) instead.
   */
  #sendIncr(round: Round, at: number, op: IncrOp): void {
    const route = this.route(op.key);
    if (route instanceof Error) {
      round.fail(at, at + 1, route);
      return;
    }
    const encoder = route.channel.encoder;
    round.results[at] = 0;
    if (op.ttlMs !== undefined && this.scripts.accepted) {
      sendScript(route, round, at, this.scripts, INCR_WITH_TTL, [op.key], [op.by, positiveMs(op.ttlMs)], integerReply);
      return;
    }
    if (op.ttlMs !== undefined) {
      const start = encoder.size;
      encodeSetIfAbsent(encoder, op.key, ZERO, op.ttlMs);
      expectOn(route, new WriteSink('set', round, at, at + 1, isOkOrNil), start);
    }
    const start = encoder.size;
    encodeIncrBy(encoder, op.key, op.by);
    expectOn(route, new CountSink('incrby', round, at), start);
  }
}
