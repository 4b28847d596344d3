/**
 * The slice of Bun's built-in Redis client (`Bun.RedisClient`, Bun ≥ 1.2.9) the store uses,
 * typed structurally so the package needs no bun-types and loads nowhere else by accident.
 */

/** Options of `new Bun.RedisClient(url, options)` that the store sets. */
export interface BunRedisClientOptions {
  /** Milliseconds to wait for the TCP (and TLS) handshake. */
  connectionTimeout?: number;
  /** Whether the client reconnects by itself after a drop. */
  autoReconnect?: boolean;
  /** Whether commands issued while disconnected wait in memory for the connection. */
  enableOfflineQueue?: boolean;
  /** Whether commands of one tick are written to the socket together (Bun's default: on). */
  enableAutoPipelining?: boolean;
  /** Reconnection attempts before the client gives up. */
  maxRetries?: number;
}

/** A value Bun's client sends as one bulk string, byte for byte. */
export type BunRedisArgument = string | Uint8Array;

/** The methods of a `Bun.RedisClient` the store calls. */
export interface BunRedisClient {
  /** True while the connection is open. */
  readonly connected: boolean;
  /** Opens the connection (again, after a drop or after `close()` of the socket). */
  connect(): Promise<void>;
  /** Closes the connection. */
  close(): void;
  /** GET that keeps the bytes: the only read of Bun's client that does not decode UTF-8. */
  getBuffer(key: string): Promise<Uint8Array | null>;
  /** SET with its options (PX, NX…); resolves "OK", or null when NX found the key. */
  set(key: string, value: BunRedisArgument, ...options: string[]): Promise<string | null>;
  /** MSET key value [key value …]. */
  mset(...keysAndValues: BunRedisArgument[]): Promise<string>;
  /** DEL, resolving how many keys existed. */
  del(...keys: string[]): Promise<number>;
  /** INCRBY. */
  incrby(key: string, by: number): Promise<number>;
  /** UNLINK, resolving how many keys existed. */
  unlink(...keys: string[]): Promise<number>;
  /** SCAN cursor [MATCH pattern] [COUNT n]. */
  scan(cursor: string, ...options: string[]): Promise<[string, string[]]>;
  /** Any other command, arguments sent as given. */
  send(command: string, args: BunRedisArgument[]): Promise<unknown>;
  /** PUBLISH, resolving how many subscribers received the message. */
  publish(channel: string, message: string): Promise<number>;
  /** SUBSCRIBE; `listener` gets each message of the channel; resolves once the server confirmed it. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<number>;
  /** A new connection with the same URL and options (the coherence bus's subscriber). */
  duplicate(): Promise<BunRedisClient>;
  /** Called when the connection opens. */
  onconnect: ((this: BunRedisClient) => void) | null | undefined;
  /** Called when the connection closes, with the reason when it failed. */
  onclose: ((this: BunRedisClient, error?: Error) => void) | null | undefined;
}

/** The constructor found at `Bun.RedisClient`. */
export type BunRedisClientConstructor = new (url: string, options?: BunRedisClientOptions) => BunRedisClient;

/** `Bun.RedisClient`, or undefined when this is not Bun (or a Bun without the client). */
export function bunRedisClientClass(): BunRedisClientConstructor | undefined {
  const bun = (globalThis as { Bun?: { RedisClient?: BunRedisClientConstructor } }).Bun;
  return typeof bun?.RedisClient === 'function' ? bun.RedisClient : undefined;
}

/** True for an object that has the methods {@link BunRedisClient} needs. */
export function isBunRedisClient(value: unknown): value is BunRedisClient {
  const client = value as Partial<BunRedisClient> | null;
  return typeof client === 'object' && client !== null && typeof client.getBuffer === 'function' && typeof client.send === 'function' && typeof client.connect === 'function';
}
