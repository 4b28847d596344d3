/**
 * cachette/adapters/valkey: stores on Valkey or Redis over TCP, on one server
 * ({@link ValkeyStore}) or on a cluster ({@link ValkeyClusterStore}).
 */
import type { IovalkeyClient, IovalkeyCluster } from './client-types.ts';
import type { ValkeyClusterStoreOptions } from './cluster-options.ts';
import { isCluster, ValkeyClusterStore } from './cluster-store.ts';
import type { NodeRedisClient } from './node-redis-client.ts';
import { ValkeyStore, type ValkeyStoreOptions } from './server-store.ts';

/** Options of {@link valkeyStore} for an iovalkey `Cluster` passed as the connection. */
export type ValkeyClusterConnectionOptions<Client extends IovalkeyCluster = IovalkeyCluster> = Omit<ValkeyStoreOptions, 'connection' | 'clientOptions'> & { connection: Client };

/**
 * Creates a Valkey/Redis store: on one server from a URL, an iovalkey client or a node-redis 5 client, or on a
 * Valkey/Redis Cluster from `{ cluster: [nodes…] }` or an iovalkey `Cluster` (as `cluster` or as
 * `connection`), which gives the {@link ValkeyClusterStore}. The type argument names the iovalkey
 * client type of `store.client` when the store opens its client itself: `valkeyStore<Redis>(url)`.
 */
export function valkeyStore<Client extends IovalkeyCluster = IovalkeyCluster>(options: ValkeyClusterStoreOptions<Client> | ValkeyClusterConnectionOptions<Client>): ValkeyClusterStore<Client>;
export function valkeyStore<Client extends NodeRedisClient>(options: Omit<ValkeyStoreOptions, 'connection' | 'clientOptions'> & { connection: Client }): ValkeyStore<Client>;
export function valkeyStore<Client extends IovalkeyClient = IovalkeyClient>(options: ValkeyStoreOptions<Client> | string): ValkeyStore<Client>;
export function valkeyStore(options: ValkeyStoreOptions | ValkeyClusterStoreOptions | ValkeyClusterConnectionOptions | string): ValkeyStore | ValkeyClusterStore {
  if (typeof options === 'object' && options !== null) {
    if ('cluster' in options) {
      if ('connection' in options) throw new TypeError('valkeyStore: give "connection" (one server) or "cluster" (a cluster), not both');
      return new ValkeyClusterStore(options);
    }
    // A Cluster passed where one server was expected would refuse every multi-slot MGET: it gets the cluster store.
    if (isCluster(options.connection)) return new ValkeyClusterStore({ cluster: options.connection, ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}) });
  }
  return new ValkeyStore(options as ValkeyStoreOptions | string);
}

export type { IovalkeyClient, IovalkeyCluster, ValkeyClientOptions, ValkeyClusterClientOptions } from './client-types.ts';
export { ValkeyClusterStore } from './cluster-store.ts';
export type { ClusterStartupNode, ValkeyClusterStoreOptions } from './cluster-options.ts';
export type { NodeRedisClient, NodeRedisClientOptions } from './node-redis-client.ts';
export { colocatedKey, hashSlot, hashTagOf, SLOT_COUNT } from './hash-slot.ts';
export { ValkeyStore, type ValkeyStoreOptions } from './server-store.ts';
