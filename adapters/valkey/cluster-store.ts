import type { Cluster, ClusterOptions, Redis } from 'iovalkey';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import type { Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';
import { prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';
import { parseStartupNodes, type ValkeyClusterStoreOptions } from './cluster-options.ts';
import { COMPRESSION_THRESHOLD } from './compression.ts';
import { hashSlot, hashTagOf } from './hash-slot.ts';
import { iovalkey } from './iovalkey.ts';
import { NodeHealth, nodeKey } from './node-health.ts';
import { nothing, orUndefined, refusal, toBuffer, toRefusal } from './replies.ts';
import { addCommand, defineStoreScripts, incrCommand, setCommand, incrManyArgs, incrReply, ScriptSupport, SCRIPT_RUN, setManyArgs, wantsSetScript, type IncrOp, type StoreScripts } from './scripts.ts';
import { bySlot, KeyGroups, WriteGroups, type WriteGroup } from './slot-groups.ts';
import { describe } from './urls.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';

/** How often the slot map is refreshed and down nodes are pinged while a node is down. */
const PROBE_EVERY_MS = 200;

/**
 * Defaults for a cluster client the store opens. A cache must answer fast when part of the
 * cluster is away, so the client gives up sooner than iovalkey's defaults, which retry for up
 * to 16 × 100 ms — longer than the cache's 1 s timeout, so waiting would only turn misses into
 * timeouts:
 * - CLUSTERDOWN (no master for some slot, during a failover) is answered at once instead of
 *   retried: the call is a miss, and the health of the store says why;
 * - a command caught by a dropped connection is retried at most 4 times, 100 ms apart (each try
 *   refreshes the slot map, so a finished failover is found);
 * - a node that does not accept a connection within 2 s is down (iovalkey waits 10 s).
 * MOVED and ASK (resharding) are still followed at once, and TRYAGAIN (a multi-key command on a
 * slot being migrated) still retried.
 */
const CLIENT_DEFAULTS: ClusterOptions = {
  retryDelayOnClusterDown: 0,
  maxRedirections: 4,
  redisOptions: { connectTimeout: 2000 },
};

type ClusterWithScripts = Cluster & StoreScripts;

/** The reply of each group of one run: bytes (or nil) per key read, or the error of the command that carried it. */
type Answers = Map<string, Buffer | null | Error>;

/**
 * A store on a Valkey/Redis Cluster through iovalkey's `Cluster`: one connection per master
 * (replicas are not read from unless `scaleReads` says so), commands routed by slot, MOVED and
 * ASK followed, failovers found through the slot map.
 *
 * One tick of the engine (a {@link Store.pipeline}) is folded per slot: a run of reads becomes
 * one MGET per slot (a GET for a slot with one key; a key asked for twice is read once), a run
 * of writes one MSET per slot for the entries without a TTL and a SET PX for each one with, a
 * delete one DEL per slot; every command of the tick is written while each master's socket is
 * corked, so each master receives the tick as one write, all masters at once, and the results
 * are stitched back in call order. Calls for a key whose master is known to be down fail at once
 * (a {@link StoreUnavailableError} naming the node), while the other masters keep answering.
 *
 * Calls on one key keep their order (one connection per master); keys a script or an MGET must
 * read together need one slot, through a hash tag (see hash-slot.ts and the README's "Cluster").
 */
export class ValkeyClusterStore implements Store {
  readonly name = 'valkey-cluster';
  readonly ordered = true;
  readonly compressionThreshold = COMPRESSION_THRESHOLD;
  /** The startup nodes, for messages. */
  readonly address: string;
  /** The underlying cluster client, for commands the store contract does not cover. */
  readonly client: Cluster;
  readonly #scripts: ClusterWithScripts;
  /** Whether the servers take scripts: once one refused, runs go as one plain command per op. */
  readonly #scriptSupport = new ScriptSupport();
  readonly #owned: boolean;
  readonly #health: NodeHealth;
  /** Why the whole cluster is known to be unreachable, or undefined while it is up (or still coming up). */
  #unavailable: string | undefined;

  constructor(options: ValkeyClusterStoreOptions) {
    const o = options;
    if (typeof o === 'object' && o !== null)
      checkKnownOptions(o, ['cluster', 'clientOptions', 'onConnectionError'] satisfies ReadonlyArray<keyof ValkeyClusterStoreOptions>, 'valkeyStore({ cluster })');
    if (isCluster(o?.cluster)) {
      this.client = o.cluster;
      this.#owned = false;
    } else if (Array.isArray(o?.cluster)) {
      const { nodes, redisOptions } = parseStartupNodes(o.cluster);
      const given = o.clientOptions ?? {};
      this.client = new (iovalkey('valkeyStore({ cluster })').Cluster)(nodes, {
        ...CLIENT_DEFAULTS,
        ...given,
        redisOptions: { ...CLIENT_DEFAULTS.redisOptions, ...redisOptions, ...given.redisOptions },
      });
      this.#owned = true;
      const report = o.onConnectionError ?? (() => {});
      this.client.on('error', report);
      this.client.on('node error', report);
    } else {
      throw new TypeError(
        `valkeyStore({ cluster }): "cluster" must be a list of nodes ("redis://host:port", "host:port" or { host, port }) or an iovalkey Cluster, got ${describe(o?.cluster).replace('iovalkey client', 'iovalkey Cluster')}`,
      );
    }
    this.address = startupAddress(this.client);
    this.#scripts = defineStoreScripts(this.client);
    this.#health = new NodeHealth(this.client, PROBE_EVERY_MS);
    this.client.on('error', this.#onError);
    this.client.on('close', this.#onClose);
    this.client.on('ready', this.#onReady);
  }

  readonly #onError = (error: Error): void => {
    if (this.client.status !== 'ready') this.#unavailable = error.message;
  };

  readonly #onClose = (): void => {
    this.#unavailable ??= 'connection closed';
  };

  readonly #onReady = (): void => {
    this.#unavailable = undefined;
  };

  get(key: string): Promise<Uint8Array | undefined> {
    const down = this.#down(key);
    if (down) return Promise.reject(down);
    return this.client.getBuffer(key).then(orUndefined, refusal);
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return [];
    return (await this.#single({ kind: 'getMany', keys })) as Array<Uint8Array | undefined>;
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    const down = this.#down(key);
    if (down) return Promise.reject(down);
    return setCommand(this.client, key, value, ttlMs).then(nothing, refusal);
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.#single({ kind: 'setMany', entries });
  }

  async delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return (await this.#single({ kind: 'delete', keys })) as number;
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const down = this.#down(key);
    if (down) return Promise.reject(down);
    return incrCommand(this.#scripts, key, by, ttlMs).catch(refusal);
  }

  async pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    const down = this.#down();
    if (down) throw down;
    const results = new Array<StoreOpResult>(ops.length);
    await Promise.all(
      this.#corked(() => {
        const pending: Array<Promise<void>> = [];
        for (let i = 0; i < ops.length; ) i = this.#issue(ops, i, results, pending);
        return pending;
      }),
    );
    return results;
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const down = this.#down(key);
    if (down) throw down;
    return addCommand(this.client, key, value, ttlMs);
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    const down = this.#down(key);
    if (down) throw down;
    return (await this.#scripts.cachetteCompareAndDelete(key, toBuffer(expected)).catch(refusal)) === 1;
  }

  /**
   * Walks every master (in parallel) with SCAN MATCH and unlinks what it finds, one UNLINK per
   * slot. A prefix that holds a whole hash tag names one slot, so only its master is walked.
   */
  async clear(prefix: string): Promise<void> {
    const down = this.#down();
    if (down) throw down;
    await this.#ready();
    const pattern = prefixPattern(prefix);
    const tag = hashTagOf(prefix);
    let masters = this.client.nodes('master');
    if (tag !== undefined) {
      const owner = this.client.slots[hashSlot(prefix)]?.[0];
      masters = masters.filter((node) => nodeKey(node) === owner);
    }
    await Promise.all(masters.map((node) => this.#clearNode(node, pattern)));
  }

  async close(): Promise<void> {
    this.#health.close();
    this.client.removeListener('error', this.#onError);
    this.client.removeListener('close', this.#onClose);
    this.client.removeListener('ready', this.#onReady);
    if (!this.#owned) return; // A client passed in belongs to its owner.
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  /**
   * The error a call must fail with at once, or undefined: the whole cluster known to be
   * unreachable (every startup node refused), or — given a key — the master of its slot known to
   * be down. Before the first connection is up (and no error was seen), commands queue.
   */
  #down(key?: string): StoreUnavailableError | undefined {
    if (this.#unavailable !== undefined && this.client.status !== 'ready') {
      return new StoreUnavailableError(`valkey cluster ${this.address}: ${this.#unavailable}`);
    }
    if (key === undefined || this.#health.allUp) return undefined;
    return this.#slotDown(hashSlot(key));
  }

  #slotDown(slot: number): StoreUnavailableError | undefined {
    const why = this.#health.check(slot);
    return why === undefined ? undefined : new StoreUnavailableError(`valkey cluster: ${why}`);
  }

  /** Resolves once the client has its slot map (commands queue until then; SCAN needs the nodes). */
  #ready(): Promise<void> {
    if (this.client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (this.client.status === 'wait') this.client.connect().catch(() => {});
      this.client.delayUntilReady((error) => (error ? reject(error) : resolve()));
    });
  }

  /** One op alone through the pipeline path (getMany, setMany and delete fold per slot too). */
  async #single(op: StoreOp): Promise<StoreOpResult> {
    const down = this.#down();
    if (down) throw down;
    const results = new Array<StoreOpResult>(1);
    await Promise.all(
      this.#corked(() => {
        const pending: Array<Promise<void>> = [];
        this.#issue([op], 0, results, pending);
        return pending;
      }),
    );
    const result = results[0];
    if (result instanceof Error) throw result;
    return result;
  }

  /**
   * Runs `issue` with every ready master's socket corked, so that the commands it sends leave
   * as one write per master.
   */
  #corked<T>(issue: () => T): T {
    const streams: Array<Redis['stream']> = [];
    if (this.client.status === 'ready') {
      for (const node of this.client.nodes('master')) {
        if (node.status === 'ready') {
          node.stream.cork();
          streams.push(node.stream);
        }
      }
    }
    try {
      return issue();
    } finally {
      for (const stream of streams) stream.uncork();
    }
  }

  /** Sends the run of ops starting at `start` (reads, writes, or one op alone); returns where the next run starts. */
  #issue(ops: readonly StoreOp[], start: number, results: StoreOpResult[], pending: Array<Promise<void>>): number {
    const op = ops[start]!;
    if (op.kind === 'get' || op.kind === 'getMany') {
      let end = start + 1;
      while (end < ops.length && (ops[end]!.kind === 'get' || ops[end]!.kind === 'getMany')) end++;
      pending.push(this.#readRun(ops, start, end, results));
      return end;
    }
    if (op.kind === 'set' || op.kind === 'setMany') {
      let end = start + 1;
      while (end < ops.length && (ops[end]!.kind === 'set' || ops[end]!.kind === 'setMany')) end++;
      pending.push(this.#writeRun(ops, start, end, results));
      return end;
    }
    let end = start + 1;
    while (end < ops.length && ops[end]!.kind === op.kind) end++;
    if (op.kind === 'incr') this.#incrRun(ops as ReadonlyArray<IncrOp>, start, end, results, pending);
    else if (end === start + 1) {
      pending.push(
        this.#deleteKeys(op.keys).then(
          (count) => void (results[start] = count),
          (error: unknown) => void (results[start] = toRefusal(error)),
        ),
      );
    } else this.#deleteRun(ops, start, end, results, pending);
    return end;
  }

  /**
   * A run of increments by slot: a slot with at least {@link SCRIPT_RUN} of them as one script
   * (one reply per counter, so a counter that is not an integer fails only its own op), the
   * others as one command each.
   */
  #incrRun(ops: ReadonlyArray<IncrOp>, start: number, end: number, results: StoreOpResult[], pending: Array<Promise<void>>): void {
    const indexes: number[] = [];
    for (let i = start; i < end; i++) indexes.push(i);
    for (const [slot, group] of bySlot(indexes, (i) => ops[i]!.key)) {
      const down = this.#slotDown(slot);
      if (down) {
        for (const i of group) results[i] = down;
      } else if (group.length >= SCRIPT_RUN && this.#scriptSupport.accepted) {
        pending.push(
          this.#scriptSupport.watch(this.#scripts.cachetteIncrMany(...incrManyArgs(group.map((i) => ops[i]!)))).then(
            (replies) => group.forEach((i, j) => (results[i] = incrReply(replies[j]))),
            (error: unknown) => void group.forEach((i) => (results[i] = toRefusal(error))),
          ),
        );
      } else {
        for (const i of group) {
          const op = ops[i]!;
          pending.push(
            incrCommand(this.#scripts, op.key, op.by, op.ttlMs).then(
              (value) => void (results[i] = value),
              (error: unknown) => void (results[i] = toRefusal(error)),
            ),
          );
        }
      }
    }
  }

  /**
   * A run of deletes (each op needs its own count) by slot: a slot with at least
   * {@link SCRIPT_RUN} keys as one script that says key by key whether each existed, the others
   * as one DEL per key; a key named by two ops counts for the first only, as the commands of a
   * slot run in order.
   */
  #deleteRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[], pending: Array<Promise<void>>): void {
    const items: Array<{ op: number; key: string }> = [];
    for (let i = start; i < end; i++) {
      results[i] = 0;
      for (const key of (ops[i] as Extract<StoreOp, { kind: 'delete' }>).keys) items.push({ op: i, key });
    }
    const count = (op: number, existed: number) => {
      const sofar = results[op];
      if (typeof sofar === 'number') results[op] = sofar + existed; // An op already failed stays failed.
    };
    for (const [slot, group] of bySlot(items, (item) => item.key)) {
      const down = this.#slotDown(slot);
      const fail = (error: unknown) => {
        const failure = toRefusal(error);
        for (const item of group) results[item.op] = failure;
      };
      if (down) fail(down);
      else if (group.length >= SCRIPT_RUN && this.#scriptSupport.accepted) {
        const keys = group.map((item) => item.key);
        pending.push(this.#scriptSupport.watch(this.#scripts.cachetteDeleteEach(keys.length, ...keys)).then((existed) => group.forEach((item, j) => count(item.op, existed[j]!)), fail));
      } else {
        for (const item of group) pending.push(this.client.del(item.key).then((existed) => count(item.op, existed), fail));
      }
    }
  }

  /** Reads the keys of ops[start, end) as one MGET (or GET) per slot, all in flight at once, and fills their results. */
  async #readRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[]): Promise<void> {
    const groups = new KeyGroups();
    for (let i = start; i < end; i++) {
      const read = ops[i]!;
      if (read.kind === 'get') groups.add(read.key);
      else if (read.kind === 'getMany') for (const key of read.keys) groups.add(key);
    }
    const answers: Answers = new Map();
    const sent: Array<Promise<void>> = [];
    for (const [slot, keys] of groups.bySlot) {
      const down = this.#slotDown(slot);
      if (down) for (const key of keys) answers.set(key, down);
      else sent.push(this.#readSlot(keys, answers));
    }
    await Promise.all(sent);
    for (let i = start; i < end; i++) {
      const read = ops[i]!;
      if (read.kind === 'get') {
        const answer = answers.get(read.key);
        results[i] = answer instanceof Error ? answer : (answer ?? undefined);
      } else if (read.kind === 'getMany') {
        const list = new Array<Uint8Array | undefined>(read.keys.length);
        let failure: Error | undefined;
        for (let j = 0; j < list.length && !failure; j++) {
          const answer = answers.get(read.keys[j]!);
          if (answer instanceof Error) failure = answer;
          else list[j] = answer ?? undefined;
        }
        results[i] = failure ?? list;
      }
    }
  }

  /** One slot's keys as one command; never rejects (a failure is the answer of each key). */
  #readSlot(keys: readonly string[], answers: Answers): Promise<void> {
    const fail = (error: unknown) => {
      const failure = toRefusal(error);
      for (const key of keys) answers.set(key, failure);
    };
    if (keys.length === 1) return this.client.getBuffer(keys[0]!).then((value) => void answers.set(keys[0]!, value), fail);
    return this.client.mgetBuffer(keys as string[]).then((values) => {
      for (let j = 0; j < keys.length; j++) answers.set(keys[j]!, values[j] ?? null);
    }, fail);
  }

  /** Writes the entries of ops[start, end) by slot; an op fails when a command carrying one of its entries failed. */
  async #writeRun(ops: readonly StoreOp[], start: number, end: number, results: StoreOpResult[]): Promise<void> {
    const groups = new WriteGroups();
    for (let i = start; i < end; i++) {
      const write = ops[i]!;
      if (write.kind === 'set') groups.add(write, i);
      else if (write.kind === 'setMany') for (const entry of write.entries) groups.add(entry, i);
    }
    for (let i = start; i < end; i++) results[i] = undefined;
    const sent: Array<Promise<unknown>> = [];
    for (const [slot, group] of groups.bySlot) {
      const down = this.#slotDown(slot);
      if (down) for (const op of group.ops) results[op] = down;
      else
        sent.push(
          this.#writeSlot(group).catch((error: unknown) => {
            const failure = toRefusal(error);
            for (const op of group.ops) if (!(results[op] instanceof Error)) results[op] = failure;
          }),
        );
    }
    await Promise.all(sent);
  }

  /**
   * One slot's writes: one script when at least {@link SCRIPT_RUN} entries are written and some
   * expire; else one MSET (or SET) for the entries without a TTL and one SET PX per entry with one.
   */
  #writeSlot(group: WriteGroup): Promise<unknown> {
    const entries = [...group.entries.values()];
    if (wantsSetScript(entries, this.#scriptSupport)) return this.#scriptSupport.watch(this.#scripts.cachetteSetMany(...setManyArgs(entries)));
    const plain: Array<string | Buffer> = [];
    const sent: Array<Promise<unknown>> = [];
    for (const entry of entries) {
      if (entry.ttlMs === undefined) plain.push(entry.key, toBuffer(entry.value));
      else sent.push(setCommand(this.client, entry.key, entry.value, entry.ttlMs));
    }
    if (plain.length === 2) sent.push(this.client.set(plain[0] as string, plain[1]!));
    else if (plain.length > 2) sent.push(this.client.mset(plain));
    return Promise.all(sent);
  }

  /** DEL per slot, all in flight at once; resolves with how many existed. */
  async #deleteKeys(keys: readonly string[]): Promise<number> {
    const groups = new KeyGroups();
    for (const key of keys) groups.add(key);
    const counts: Array<Promise<number>> = [];
    for (const [slot, group] of groups.bySlot) {
      const down = this.#slotDown(slot);
      counts.push(down ? Promise.reject(down) : this.client.del(group));
    }
    let total = 0;
    for (const count of await Promise.all(counts)) total += count;
    return total;
  }

  /** One master's share of {@link clear}: SCAN that node, UNLINK what it found per slot. */
  async #clearNode(node: Redis, pattern: string): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH);
      if (keys.length > 0) {
        const groups = new KeyGroups();
        for (const key of keys) groups.add(key);
        // Through the cluster client, so a key caught mid-migration is followed to its new node.
        await Promise.all([...groups.bySlot.values()].map((group) => this.client.unlink(group)));
      }
      cursor = next;
    } while (cursor !== '0');
  }
}

/** True for an iovalkey `Cluster` (also one from another copy of the package). */
export function isCluster(value: unknown): value is Cluster {
  // Only an object can be one, and whoever built it has iovalkey: a URL or a list of nodes never loads the package here.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return value instanceof iovalkey('valkeyStore()').Cluster || ((value as { isCluster?: unknown }).isCluster === true && typeof (value as Cluster).nodes === 'function');
}

/** The startup nodes of a client as `host:port,…`, for messages. */
function startupAddress(client: Cluster): string {
  const nodes = (client as unknown as { startupNodes?: unknown }).startupNodes;
  if (!Array.isArray(nodes)) return 'cluster';
  return nodes.map((n: unknown) => (typeof n === 'object' && n !== null ? `${(n as { host?: string }).host ?? '127.0.0.1'}:${(n as { port?: number }).port ?? 6379}` : String(n))).join(',');
}
