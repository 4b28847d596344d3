/**
 * The options of the cluster store and how its startup nodes are read: checked once, at
 * creation, with messages that say what was wrong and what is accepted.
 */
import type { IovalkeyCluster, OptionsOf, ValkeyClusterClientOptions } from './client-types.ts';
import { redactUrl } from '../../src/util/redact-url.ts';
import { isTlsUrl, parseValkeyUrl } from './urls.ts';

/** A node to discover the cluster from: `redis://host:port` (or rediss://, valkey://, valkeys://), `host:port`, or `{ host, port }`. */
export type ClusterStartupNode = string | { host: string; port: number };

/**
 * Options of the cluster store ({@link valkeyStore} with `cluster`). `Client` is the type of the
 * iovalkey `Cluster`: the one passed as `cluster`, or iovalkey's given as the type argument.
 */
export interface ValkeyClusterStoreOptions<Client extends IovalkeyCluster = IovalkeyCluster> {
  /**
   * Some nodes of the cluster (one is enough; the client discovers the others and follows
   * failovers), or an iovalkey `Cluster` you own, which the store then never closes.
   */
  cluster: readonly ClusterStartupNode[] | Client;
  /**
   * Extra iovalkey cluster options when the store opens the client itself (`redisOptions` for
   * each node connection, `scaleReads`, `natMap`, …). Credentials and TLS may also come from
   * the node URLs.
   */
  clientOptions?: OptionsOf<Client, ValkeyClusterClientOptions>;
  /**
   * Called on connection errors of a client the store opened (a node refusing connections, the
   * whole cluster unreachable). Calls that fail because of them fail anyway, and the cache
   * reports those and the store going down, once; by default connection errors are not printed.
   */
  onConnectionError?: (error: Error) => void;
  /**
   * The node that carries the coherence bus of coherent L1 tiers (`l1: { consistency:
   * 'coherent' }`): pub/sub on one node, which every process sharing the cluster must name
   * alike. Default: the startup node that sorts first (`host:port`), so that processes given the
   * same startup nodes in any order agree. While it is unreachable, L1 is bypassed.
   */
  busNode?: string;
}

/** Startup nodes as iovalkey takes them, and what their URLs said about every node connection. */
export interface ParsedStartupNodes {
  nodes: Array<{ host: string; port: number }>;
  /** Credentials and TLS taken from the URLs (the same for every node: one cluster, one setting). */
  redisOptions: { username?: string; password?: string; tls?: Record<string, never> };
}

const WHO = 'valkeyStore({ cluster })';

/** Reads the startup nodes; a TypeError names the first node that is not one, and why. */
export function parseStartupNodes(nodes: readonly ClusterStartupNode[]): ParsedStartupNodes {
  if (!Array.isArray(nodes) || nodes.length === 0) {
    throw new TypeError(`${WHO}: "cluster" must be a non-empty list of nodes ("redis://host:port", "host:port" or { host, port }) or an iovalkey Cluster`);
  }
  const parsed: ParsedStartupNodes = { nodes: [], redisOptions: {} };
  let settings: string | undefined;
  for (const node of nodes) {
    if (typeof node === 'object' && node !== null) {
      parsed.nodes.push({ host: checkHost(node.host, node), port: checkPort(node.port, node) });
      continue;
    }
    if (typeof node !== 'string') throw new TypeError(`${WHO}: a node must be a URL, "host:port" or { host, port }, got ${typeof node}`);
    const url = parseValkeyUrl(node.includes('://') ? node : `redis://${node}`, WHO);
    parsed.nodes.push({ host: checkHost(url.hostname.replace(/^\[|\]$/g, ''), node), port: checkPort(url.port === '' ? 6379 : Number(url.port), node) });
    const options: ParsedStartupNodes['redisOptions'] = {};
    if (url.username) options.username = decodeURIComponent(url.username);
    if (url.password) options.password = decodeURIComponent(url.password);
    if (isTlsUrl(url)) options.tls = {};
    // Every node of one cluster takes the same credentials and TLS: URLs that disagree are a mistake.
    const these = JSON.stringify(options);
    if (settings !== undefined && these !== settings) throw new TypeError(`${WHO}: the node URLs disagree on credentials or TLS (${redactUrl(node)}); every node of a cluster takes the same`);
    settings = these;
    Object.assign(parsed.redisOptions, options);
  }
  return parsed;
}

function checkHost(host: unknown, node: unknown): string {
  if (typeof host !== 'string' || host === '') throw new TypeError(`${WHO}: ${quote(node)} has no host`);
  return host;
}

function checkPort(port: unknown, node: unknown): number {
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new TypeError(`${WHO}: ${quote(node)} has no valid port (an integer 1–65535)`);
  }
  return port;
}

/** A node as its error quotes it: a URL without its secrets. */
function quote(node: unknown): string {
  return JSON.stringify(typeof node === 'string' ? redactUrl(node) : node);
}
