/**
 * The iovalkey types in the stores' public signatures, written structurally: the published types
 * of cachette/adapters/valkey never import iovalkey, so a store opened from a URL type-checks
 * without iovalkey installed (it needs none at run time either). iovalkey's own `Redis`,
 * `Cluster` and their options fit these types.
 *
 * A store's `client` has the type of the client it was given (`valkeyStore({ connection: redis })`
 * is a `ValkeyStore<Redis>`); one that opens its client itself (from a URL, or a list of cluster
 * nodes) says iovalkey's type when it is given as the type argument — `valkeyStore<Redis>(url)`,
 * `valkeyStore<Cluster>({ cluster: nodes })` — which also types `clientOptions` as iovalkey's.
 */
import type { ConnectionOptions as TlsOptions } from 'node:tls';

/** What the store needs to know an iovalkey `Redis` client by (iovalkey's `Redis` is one). */
export interface IovalkeyClient {
  getBuffer(key: string): Promise<unknown>;
  sendCommand(command: never): unknown;
}

/** What the store needs to know an iovalkey `Cluster` by (iovalkey's `Cluster` is one). */
export interface IovalkeyCluster extends IovalkeyClient {
  nodes(role: never): readonly unknown[];
}

/**
 * `clientOptions` for one server when no iovalkey type is given: the options the store's own
 * connection takes, typed, and any other iovalkey option, which makes the store open an iovalkey
 * client with all of them (docs/stores.md).
 */
export interface ValkeyClientOptions {
  host?: string;
  port?: number;
  /** A Unix socket path instead of host and port. */
  path?: string;
  family?: number;
  tls?: TlsOptions;
  username?: string;
  password?: string;
  db?: number;
  connectionName?: string;
  /** How long a connection attempt (handshake included) may take, ms. Default 10,000. */
  connectTimeout?: number;
  keepAlive?: number;
  /** The delay before reconnect attempt `attempt`, ms; anything but a number stops reconnecting. */
  retryStrategy?: (attempt: number) => unknown;
  lazyConnect?: boolean;
  /**
   * While commands wait for replies, how long the connection may go without receiving a byte
   * before it is dropped and reconnected, ms; `Infinity` never drops it. Default 5,000.
   */
  socketTimeout?: number;
  /** Any other iovalkey option. */
  [option: string]: unknown;
}

/** `clientOptions` of a cluster when no iovalkey type is given: iovalkey's cluster options, with `redisOptions` for every node connection. */
export interface ValkeyClusterClientOptions {
  redisOptions?: ValkeyClientOptions;
  /** Any other iovalkey cluster option (`scaleReads`, `natMap`, …). */
  [option: string]: unknown;
}

/** The `clientOptions` type that goes with a client type: its own options' type (iovalkey's), else `Fallback`. */
export type OptionsOf<Client, Fallback> = Client extends { readonly options: infer Options } ? Partial<Options> : Fallback;
