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
import type { RespConnectionOptions } from './resp/connection.ts';

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
 * connection takes, typed (resp/connection.ts), and any other iovalkey option, which makes the
 * store open an iovalkey client with all of them (docs/stores.md).
 */
export interface ValkeyClientOptions extends Omit<RespConnectionOptions, 'limits' | 'subscriber'> {
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
