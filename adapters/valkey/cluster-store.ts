import type { Cluster, ClusterOptions, Redis } from 'iovalkey';
import { checkKnownOptions } from '../../src/util/known-options.ts';
import { iovalkey } from './iovalkey.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import type { DeleteOp } from '../../src/store/op-runs.ts';
import { PubSubBus } from '../../src/store/bus/pubsub-bus.ts';
import type { Coherence, CoherenceListener, CoherenceOptions, KeyPage, StoreOp } from '../../src/store/types.ts';
import { busNodeLink } from './cluster-bus.ts';
import { ValkeyBusTransport } from './coherence-bus.ts';
import { prefixPattern, SCAN_BATCH } from '../shared/redis-protocol.ts';
import { expectOn, type Route } from './channel.ts';
import { ClientChannel } from './client-channel.ts';
import { ClientAvailability } from './client-availability.ts';
import type { IovalkeyCluster } from './client-types.ts';
import { parseStartupNodes, type ClusterStartupNode, type ValkeyClusterStoreOptions } from './cluster-options.ts';
import { encodeDel, encodeGet, encodeMget, encodeMset, encodeSet, MAX_KEYS_PER_COMMAND, pieces } from './commands.ts';
import { hashSlot, hashTagOf } from './hash-slot.ts';
import { NodeHealth, nodeKey } from './node-health.ts';
import type { RespValue } from './resp/parser.ts';
import { isBulkOrNil } from './replies.ts';
import { CountSink, type Round, ValueSink, WireCommand, WriteListSink } from './round.ts';
import { bySlot, KeyGroups, WriteGroups } from './slot-groups.ts';
import { ValkeyStoreBase } from './store-base.ts';
import { describe, iovalkeySocketTimeout } from './urls.ts';
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
 * - a node that does not accept a connection within 2 s is down (iovalkey waits 10 s);
 * - a node connection on which commands wait and no byte arrives for `socketTimeout` (5 s, as on
 *   the store's own connection; `Infinity` for none) is dropped, and found again from the slot map.
 * MOVED and ASK (resharding) are still followed at once, and TRYAGAIN (a multi-key command on a
 * slot being migrated) still retried.
 */
const CLIENT_DEFAULTS: ClusterOptions = {
  retryDelayOnClusterDown: 0,
  maxRedirections: 4,
  redisOptions: { connectTimeout: 2000 },
};

/**
 * A store on a Valkey/Redis Cluster. iovalkey's `Cluster` manages the connections (one per
 * master; replicas are not read from unless `scaleReads` says so), the slot map, failovers and
 * redirections; the store encodes its own commands (resp/encoder.ts) and hands them straight to
 * the master that serves their slot, so each master receives a tick as one write, all masters at
 * once. A command the node redirects (MOVED, ASK, TRYAGAIN) is given to the cluster client, which
 * follows it and refreshes its map; one for a node not connected yet goes through it too.
 *
 * One tick of the engine (a {@link Store.pipeline}) is folded per slot: a run of reads becomes
 * one MGET per slot (a GET for a slot with one key; a key asked for twice is read once), a run of
 * writes one MSET per slot for the entries without a TTL and a SET PX for each one with, a delete
 * one DEL per slot; the results are stitched back in call order. Calls for a key whose master is
 * known to be down fail at once (a {@link StoreUnavailableError} naming the node), while the
 * other masters keep answering.
 *
 * Calls on one key keep their order (one connection per master); keys a script or an MGET must
 * read together need one slot, through a hash tag (see hash-slot.ts and the README's "Cluster").
 */
export class ValkeyClusterStore<Client extends IovalkeyCluster = IovalkeyCluster> extends ValkeyStoreBase {
  readonly name = 'valkey-cluster';
  /** The startup nodes, for messages. */
  readonly address: string;
  readonly #cluster: Cluster;
  readonly #health: NodeHealth;
  /** Reads go to masters only (iovalkey's default); otherwise they go through the cluster client, which picks the node. */
  readonly #readsFromMasters: boolean;
  /** Node connections by `host:port`, as the slot map names them, each with its channel. */
  readonly #nodes = new Map<string, { redis: Redis; channel: ClientChannel }>();
  /** Through the cluster client itself: before the slot map is known, or to a node not connected yet. */
  readonly #clusterChannel: ClientChannel;
  /** Whether the whole cluster is known to be unreachable (every startup node refused). */
  readonly #availability: ClientAvailability;
  /** Where the coherence bus lives (adapters/valkey/cluster-bus.ts), if one was named. */
  readonly #busNode: string | undefined;
  /** The coherence bus for coherent L1 tiers, started by the first {@link coherence}. */
  #bus: PubSubBus | undefined;

  constructor(options: ValkeyClusterStoreOptions<Client>) {
    super();
    const o = options as { cluster?: unknown; clientOptions?: ClusterOptions; onConnectionError?: (error: Error) => void; busNode?: unknown };
    if (typeof o === 'object' && o !== null)
      checkKnownOptions(o, ['cluster', 'clientOptions', 'onConnectionError', 'busNode'] satisfies ReadonlyArray<keyof ValkeyClusterStoreOptions>, 'valkeyStore({ cluster })');
    let owned = false;
    // A Cluster passed in is iovalkey's, whatever type the caller knows it by.
    if (isCluster(o?.cluster)) this.#cluster = o.cluster as unknown as Cluster;
    else if (Array.isArray(o?.cluster)) {
      const { nodes, redisOptions } = parseStartupNodes(o.cluster as ClusterStartupNode[]);
      const given = o.clientOptions ?? {};
      this.#cluster = new (iovalkey('valkeyStore({ cluster })').Cluster)(nodes, {
        ...CLIENT_DEFAULTS,
        ...given,
        redisOptions: {
          ...CLIENT_DEFAULTS.redisOptions,
          ...redisOptions,
          ...given.redisOptions,
          // A node that stops answering is dropped (then found again through the slot map), as the store's own connection is.
          socketTimeout: iovalkeySocketTimeout(given.redisOptions?.socketTimeout),
        },
      });
      owned = true;
      const report = o.onConnectionError ?? (() => {});
      this.#cluster.on('error', report);
      this.#cluster.on('node error', report);
    } else {
      throw new TypeError(
        `valkeyStore({ cluster }): "cluster" must be a list of nodes ("redis://host:port", "host:port" or { host, port }) or an iovalkey Cluster, got ${describe(o?.cluster).replace('iovalkey client', 'iovalkey Cluster')}`,
      );
    }
    const keyPrefix = this.#cluster.options.keyPrefix ?? this.#cluster.options.redisOptions?.keyPrefix;
    if (keyPrefix)
      throw new TypeError(`valkeyStore({ cluster }): the iovalkey option keyPrefix (${JSON.stringify(keyPrefix)}) is not supported; give createCache a "prefix" (or a "namespace") instead`);
    this.address = startupAddress(this.#cluster);
    this.#readsFromMasters = (this.#cluster.options.scaleReads ?? 'master') === 'master';
    this.#clusterChannel = new ClientChannel(this.#cluster);
    this.#health = new NodeHealth(this.#cluster, PROBE_EVERY_MS);
    for (const node of this.#cluster.nodes('all')) this.#onNode(node);
    this.#cluster.on('+node', this.#onNode);
    this.#cluster.on('-node', this.#onNodeGone);
    this.#availability = new ClientAvailability(this.#cluster, owned);
    if (o.busNode !== undefined && typeof o.busNode !== 'string') throw new TypeError(`valkeyStore({ cluster }): "busNode" must be "host:port", got ${describe(o.busNode)}`);
    this.#busNode = o.busNode;
  }

  /**
   * Pub/sub with leased holders on one node of the cluster (adapters/valkey/cluster-bus.ts):
   * an invalidation is published there once its write answered.
   */
  coherence(listener: CoherenceListener, options: CoherenceOptions): Coherence {
    if (this.#bus === undefined) {
      const link = busNodeLink(this.#cluster, this.#busNode);
      this.#bus = new PubSubBus(new ValkeyBusTransport(link, false, () => link.close()));
    }
    return this.#bus.register(listener, options);
  }

  readonly #onNode = (node: Redis): void => {
    this.#nodes.set(nodeKey(node), { redis: node, channel: new ClientChannel(node) });
  };

  readonly #onNodeGone = (node: Redis): void => {
    const key = nodeKey(node);
    const known = this.#nodes.get(key);
    if (known?.redis !== node) return;
    // Commands already encoded for it still leave, through its (closing) connection, and fail there.
    known.channel.flush();
    this.#nodes.delete(key);
  };

  /** The underlying cluster client, for commands the store contract does not cover (typed `Client`). */
  get client(): Client {
    return this.#cluster as unknown as Client;
  }

  protected get where(): string {
    return `valkey cluster ${this.address}`;
  }

  /**
   * The whole cluster known to be unreachable (every startup node refused). A master known to be
   * down fails only the keys of its slots (see {@link route}). Before the first connection is up
   * (and no error was seen), commands queue.
   */
  protected unreachable(): StoreUnavailableError | undefined {
    const why = this.#availability.unavailable;
    return why === undefined ? undefined : new StoreUnavailableError(`valkey cluster ${this.address}: ${why}`);
  }

  protected route(key: string): Route | StoreUnavailableError {
    return this.#slotRoute(hashSlot(key), false);
  }

  /** One script per slot (a script may only name keys of one slot) and per MAX_KEYS_PER_COMMAND keys. */
  protected override scriptGroups(keys: readonly string[]): ReadonlyArray<readonly string[]> {
    return [...bySlot(keys, (key) => key).values()].flatMap(pieces);
  }

  /** A script may only name keys of one slot. */
  protected override scriptSlot(key: string): number {
    return hashSlot(key);
  }

  protected flush(): void {
    for (const node of this.#nodes.values()) node.channel.flush();
    this.#clusterChannel.flush();
  }

  /** A lone get as GET; other runs as one MGET (or GET) per slot, each key read once. */
  protected sendReads(round: Round, ops: readonly StoreOp[], from: number, to: number): void {
    const first = ops[from]!;
    if (to - from === 1 && first.kind === 'get') {
      const route = this.#slotRoute(hashSlot(first.key), true);
      if (route instanceof Error) round.fail(from, to, route);
      else {
        const start = route.channel.encoder.size;
        encodeGet(route.channel.encoder, first.key);
        expectOn(route, new ValueSink(round, from), start);
      }
      return;
    }
    const groups = new KeyGroups();
    for (let i = from; i < to; i++) {
      const read = ops[i]!;
      if (read.kind === 'get') groups.add(read.key);
      else if (read.kind === 'getMany') for (const key of read.keys) groups.add(key);
    }
    const join = new ReadJoin(round, ops, from, to);
    for (const [slot, keys] of groups.bySlot) {
      const route = this.#slotRoute(slot, true);
      if (route instanceof Error) {
        for (const key of keys) join.answers.set(key, route);
        continue;
      }
      for (let from = 0; from < keys.length; from += MAX_KEYS_PER_COMMAND) {
        const piece = keys.length <= MAX_KEYS_PER_COMMAND ? keys : keys.slice(from, from + MAX_KEYS_PER_COMMAND);
        const start = route.channel.encoder.size;
        if (piece.length === 1) encodeGet(route.channel.encoder, piece[0]!);
        else encodeMget(route.channel.encoder, piece);
        expectOn(route, new SlotReadSink(join, piece), start);
      }
    }
    join.seal();
  }

  /**
   * Writes by slot, each key once with its last value (see WriteGroups): one MSET (or SET) for
   * the entries without a TTL, one SET PX per entry with one; a failed command fails the ops
   * whose entries its slot carried.
   */
  protected sendWrites(round: Round, ops: readonly StoreOp[], from: number, to: number): void {
    const groups = new WriteGroups();
    for (let i = from; i < to; i++) {
      const write = ops[i]!;
      if (write.kind === 'set') groups.add(write, i);
      else if (write.kind === 'setMany') for (const entry of write.entries) groups.add(entry, i);
      round.results[i] = undefined;
    }
    for (const [slot, group] of groups.bySlot) {
      const route = this.#slotRoute(slot, false);
      if (route instanceof Error) {
        for (const op of group.ops) round.fail(op, op + 1, route);
        continue;
      }
      const encoder = route.channel.encoder;
      const plain = [];
      for (const entry of group.entries.values()) {
        if (entry.ttlMs === undefined) plain.push(entry);
        else {
          const start = encoder.size;
          encodeSet(encoder, entry);
          expectOn(route, new WriteListSink('set', round, group.ops), start);
        }
      }
      for (let from = 0; from < plain.length; from += MAX_KEYS_PER_COMMAND) {
        const to = Math.min(from + MAX_KEYS_PER_COMMAND, plain.length);
        const start = encoder.size;
        if (to - from === 1) encodeSet(encoder, plain[from]!);
        else encodeMset(encoder, plain, from, to);
        expectOn(route, new WriteListSink(to - from === 1 ? 'set' : 'mset', round, group.ops), start);
      }
    }
  }

  /** DEL per slot of the op's keys, their counts summed into the op's. */
  protected sendDelete(round: Round, at: number, op: DeleteOp): void {
    round.results[at] = 0;
    if (op.keys.length === 0) return;
    const groups = new KeyGroups();
    for (const key of op.keys) groups.add(key);
    for (const [slot, keys] of groups.bySlot) {
      const route = this.#slotRoute(slot, false);
      if (route instanceof Error) {
        round.fail(at, at + 1, route);
        continue;
      }
      for (let from = 0; from < keys.length; from += MAX_KEYS_PER_COMMAND) {
        const start = route.channel.encoder.size;
        encodeDel(route.channel.encoder, keys, from, Math.min(from + MAX_KEYS_PER_COMMAND, keys.length));
        expectOn(route, new CountSink('del', round, at), start);
      }
    }
  }

  /**
   * Walks every master (in parallel) with SCAN MATCH and unlinks what it finds, one UNLINK per
   * slot. A prefix that holds a whole hash tag names one slot, so only its master is walked.
   */
  async clear(prefix: string): Promise<void> {
    const masters = await this.#mastersOf(prefix);
    const pattern = prefixPattern(prefix);
    await Promise.all(masters.map((node) => this.#clearNode(node, pattern)));
  }

  /**
   * One SCAN step on one master, the masters walked one after the other: the cursor is
   * `<master's index>:<its SCAN cursor>`, masters in address order. A walk across a failover or
   * a resharding may miss or repeat keys, as SCAN on one server does across a rehash.
   */
  async keys(prefix: string, cursor = '0:0'): Promise<KeyPage> {
    const step = /^(\d{1,4}):(\d{1,20})$/.exec(cursor);
    if (!step) throw new TypeError(`valkey cluster: keys() was given a cursor it never returned (${cursor.slice(0, 40)})`);
    const masters = await this.#mastersOf(prefix);
    const index = Number(step[1]);
    const node = masters[index];
    if (node === undefined) return { keys: [] };
    const [next, keys] = await node.scan(step[2]!, 'MATCH', prefixPattern(prefix), 'COUNT', SCAN_BATCH);
    if (next !== '0') return { keys, cursor: `${index}:${next}` };
    return index + 1 < masters.length ? { keys, cursor: `${index + 1}:0` } : { keys };
  }

  /** The masters that may hold keys starting with `prefix`, in address order: its slot's alone when it holds a whole hash tag. */
  async #mastersOf(prefix: string): Promise<Redis[]> {
    const down = this.down();
    if (down) throw down;
    await this.#ready();
    const tag = hashTagOf(prefix);
    let masters = this.#cluster.nodes('master');
    if (tag !== undefined) {
      const owner = this.#cluster.slots[hashSlot(prefix)]?.[0];
      masters = masters.filter((node) => nodeKey(node) === owner);
    }
    return [...masters].sort((a, b) => (nodeKey(a) < nodeKey(b) ? -1 : nodeKey(a) > nodeKey(b) ? 1 : 0));
  }

  protected async closeConnections(): Promise<void> {
    await this.#bus?.close();
    this.#health.close();
    this.#cluster.removeListener('+node', this.#onNode);
    this.#cluster.removeListener('-node', this.#onNodeGone);
    await this.#availability.close();
  }

  /**
   * Where the commands of `slot` go: its master's connection when the slot map names one that is
   * connected (a read only when reads go to masters), else the cluster client; or why its master
   * is known to be down.
   */
  #slotRoute(slot: number, read: boolean): Route | StoreUnavailableError {
    const why = this.#health.check(slot);
    if (why !== undefined) return new StoreUnavailableError(`valkey cluster: ${why}`);
    if (this.#cluster.status === 'ready' && (this.#readsFromMasters || !read)) {
      const owner = this.#cluster.slots[slot]?.[0];
      const node = owner === undefined ? undefined : this.#nodes.get(owner);
      if (node !== undefined && node.redis.status === 'ready') return { channel: node.channel, slot, via: this.#cluster };
    }
    return { channel: this.#clusterChannel, slot };
  }

  /** Resolves once the client has its slot map (commands queue until then; SCAN needs the nodes). */
  #ready(): Promise<void> {
    if (this.#cluster.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (this.#cluster.status === 'wait') this.#cluster.connect().catch(() => {});
      this.#cluster.delayUntilReady((error) => (error ? reject(error) : resolve()));
    });
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
        await Promise.all([...groups.bySlot.values()].map((group) => this.#cluster.unlink(group)));
      }
      cursor = next;
    } while (cursor !== '0');
  }
}

/** The answers of a run of reads spread over slots: complete once every slot's command is answered. */
class ReadJoin {
  /** Each key's bytes (or nil), or the failure of the command that carried it. */
  readonly answers = new Map<string, Buffer | null | Error>();
  readonly #round: Round;
  readonly #ops: readonly StoreOp[];
  readonly #from: number;
  readonly #to: number;
  /** Slot commands not answered yet, plus one while they are being issued. */
  #pending = 1;

  constructor(round: Round, ops: readonly StoreOp[], from: number, to: number) {
    this.#round = round;
    this.#ops = ops;
    this.#from = from;
    this.#to = to;
    round.hold();
  }

  /** A slot's command was sent. */
  hold(): void {
    this.#pending++;
  }

  /** A slot's command was answered. */
  release(): void {
    if (--this.#pending === 0) this.#complete();
  }

  /** Every slot's command is sent. */
  seal(): void {
    this.release();
  }

  /** A failure as the round classifies it. */
  classify(error: Error): Error {
    return this.#round.classify(error);
  }

  /** Stitches the answers back into the reads' result slots, in call order. */
  #complete(): void {
    const results = this.#round.results;
    const answers = this.answers;
    for (let i = this.#from; i < this.#to; i++) {
      const read = this.#ops[i]!;
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
    this.#round.release();
  }
}

/** One slot's GET or MGET within a {@link ReadJoin}: each key's answer, or the command's failure for each. */
class SlotReadSink extends WireCommand {
  readonly #join: ReadJoin;
  readonly #keys: readonly string[];

  constructor(join: ReadJoin, keys: readonly string[]) {
    super(keys.length === 1 ? 'get' : 'mget');
    this.#join = join;
    this.#keys = keys;
    join.hold();
  }

  protected onReply(value: RespValue): boolean {
    const keys = this.#keys;
    if (keys.length === 1 ? !isBulkOrNil(value) : !Array.isArray(value) || value.length !== keys.length || !value.every(isBulkOrNil)) return false;
    if (keys.length === 1) this.#join.answers.set(keys[0]!, value as Buffer | null);
    else {
      const values = value as Array<Buffer | null>;
      for (let j = 0; j < keys.length; j++) this.#join.answers.set(keys[j]!, values[j]!);
    }
    return true;
  }

  protected onError(error: Error): void {
    const failure = this.#join.classify(error);
    for (const key of this.#keys) this.#join.answers.set(key, failure);
  }

  protected override answered(): void {
    this.#join.release();
  }
}

/** True for an iovalkey `Cluster` (also one from another copy of the package). */
export function isCluster(value: unknown): value is IovalkeyCluster {
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
