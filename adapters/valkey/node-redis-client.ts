/**
 * A node-redis 5 client as the valkey store knows it, in a file of its own: the published types
 * name it (valkeyStore's `connection`), and must not reach the link's files, whose declarations
 * import iovalkey's (test/package/valkey-types.pack.ts).
 */

/** The options of a node-redis client the store reads (node-redis's own `RedisClientOptions` fits). */
export interface NodeRedisClientOptions {
  url?: string;
  socket?: { host?: unknown; port?: unknown; path?: unknown; tls?: unknown } | undefined;
  username?: string;
  password?: string;
  database?: number;
  RESP?: number;
  clientSideCache?: unknown;
}

/**
 * What the store needs to know a node-redis 5 client by (node-redis's `RedisClientType` is one),
 * written structurally: the published types never import `redis`.
 */
export interface NodeRedisClient {
  sendCommand(args: ReadonlyArray<string | Buffer>, options?: { typeMapping?: Record<number, unknown> }): Promise<unknown>;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  readonly options?: NodeRedisClientOptions | undefined;
  on(event: 'ready' | 'end' | 'error', listener: (error?: Error) => void): unknown;
  off(event: 'ready' | 'end' | 'error', listener: (error?: Error) => void): unknown;
}

/** True for a node-redis client: it has `sendCommand` and `isReady`, and none of iovalkey's `getBuffer`. */
export function isNodeRedisClient(value: unknown): value is NodeRedisClient {
  if (typeof value !== 'object' || value === null) return false;
  const client = value as Partial<NodeRedisClient> & { getBuffer?: unknown };
  return typeof client.sendCommand === 'function' && typeof client.isReady === 'boolean' && client.getBuffer === undefined;
}
