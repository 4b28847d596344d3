/**
 * Which masters of a cluster are known to be unreachable, so that a call for a key they serve
 * fails in microseconds instead of waiting in iovalkey's redirection retries (which outlast the
 * cache's timeout) — while every other master keeps answering.
 *
 * A node is marked down on a connection error (iovalkey's `node error`), and marked up again
 * when a connection to it becomes ready or answers a PING. While any node is down, a probe runs
 * every `probeEveryMs`: it refreshes the slot map (a failover hands the slots to a promoted
 * replica, and the calls follow it at once) and pings every down node that still serves slots
 * (a node that comes back is used again without waiting for live traffic to find out). A down
 * node that serves no slot any more is forgotten.
 */
import type { Cluster, Redis } from 'iovalkey';

/** `host:port` of a node connection, as iovalkey keys its slot map. */
export function nodeKey(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

/** The down masters of one cluster client, and the probe that brings them back. */
export class NodeHealth {
  readonly #cluster: Cluster;
  readonly #probeEveryMs: number;
  /** Node key → why it is down. */
  readonly #down = new Map<string, string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  readonly #onNodeError = (error: Error, key: string): void => this.#markDown(key, error.message);
  readonly #onNewNode = (node: Redis): void => {
    node.once('ready', () => this.#markUp(nodeKey(node)));
  };

  constructor(cluster: Cluster, probeEveryMs: number) {
    this.#cluster = cluster;
    this.#probeEveryMs = probeEveryMs;
    cluster.on('node error', this.#onNodeError);
    cluster.on('+node', this.#onNewNode);
  }

  /** True while no node is known to be down (the hot path checks this first). */
  get allUp(): boolean {
    return this.#down.size === 0;
  }

  /** Nodes known to be down, with why. */
  get downNodes(): ReadonlyMap<string, string> {
    return this.#down;
  }

  /** Why the master serving `slot` is known to be down, or undefined when it is not (or the slot map is not known yet). */
  check(slot: number): string | undefined {
    if (this.#down.size === 0) return undefined;
    const master = this.#cluster.slots[slot]?.[0];
    if (master === undefined) return undefined;
    const why = this.#down.get(master);
    return why === undefined ? undefined : `node ${master} (serving slot ${slot}) is down: ${why}`;
  }

  /** Stops probing and listening (the client may outlive the store). */
  close(): void {
    this.#closed = true;
    this.#stopProbing();
    this.#cluster.removeListener('node error', this.#onNodeError);
    this.#cluster.removeListener('+node', this.#onNewNode);
  }

  #markDown(key: string, why: string): void {
    if (this.#closed) return;
    this.#down.set(key, why);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#probe(), this.#probeEveryMs);
      // The probe must never keep a process alive on its own.
      this.#timer.unref?.();
    }
  }

  #markUp(key: string): void {
    if (!this.#down.delete(key)) return;
    if (this.#down.size === 0) this.#stopProbing();
  }

  #stopProbing(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #probe(): void {
    const cluster = this.#cluster;
    if (cluster.status === 'end') {
      this.close();
      return;
    }
    cluster.refreshSlotsCache();
    const owners = new Set<string>();
    for (const holders of cluster.slots) if (holders?.[0] !== undefined) owners.add(holders[0]);
    const nodes = cluster.nodes('all');
    for (const key of [...this.#down.keys()]) {
      if (!owners.has(key)) {
        this.#markUp(key); // No slot is served there any more: nothing to protect callers from.
        continue;
      }
      const node = nodes.find((n) => nodeKey(n) === key);
      // A failed PING comes back as a `node error`, which keeps the node down with a fresh cause.
      node?.ping().then(
        () => this.#markUp(key),
        () => {},
      );
    }
  }
}
