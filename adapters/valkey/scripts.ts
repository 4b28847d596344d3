/**
 * The server-side scripts the Valkey stores register on their client (iovalkey sends EVALSHA and
 * falls back to EVAL once per node), typed as the commands they become. Every script touches one
 * key, so it runs unchanged on a cluster.
 */
import type { Cluster, Redis as Valkey } from 'iovalkey';
import { COMPARE_AND_DELETE_LUA, INCR_WITH_TTL_LUA } from '../shared/redis-protocol.ts';

/** The commands {@link defineStoreScripts} adds to a client. */
export interface StoreScripts {
  cachetteCompareAndDelete(key: string, expected: Buffer): Promise<number>;
  cachetteIncrPx(key: string, by: number, ttlMs: number): Promise<number>;
}

/** A single-server client with the store's scripts. */
export type ValkeyWithScripts = Valkey & StoreScripts;

/** Registers the store's scripts on `client` (defining them again on a shared client is harmless). */
export function defineStoreScripts<C extends Valkey | Cluster>(client: C): C & StoreScripts {
  client.defineCommand('cachetteCompareAndDelete', { numberOfKeys: 1, lua: COMPARE_AND_DELETE_LUA });
  client.defineCommand('cachetteIncrPx', { numberOfKeys: 1, lua: INCR_WITH_TTL_LUA });
  return client as C & StoreScripts;
}
