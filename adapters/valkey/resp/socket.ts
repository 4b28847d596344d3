/**
 * The socket under the store's own connection (connection.ts), chosen per runtime: the part of
 * a node:net Socket that the connection uses ({@link RespSocket}), so that one connection, one
 * encoder and one parser serve every runtime.
 *
 * Bun gets its own socket (bun-socket.ts): measured interleaved inside the store, it costs less
 * server CPU per `/work` request than Bun's node:net. Deno keeps node:net: its own `Deno.connect`
 * (a promise per read and per write) measured slower than Deno's node:net in the same runs.
 */
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsOptions } from 'node:tls';
import { BunSocket, bunConnect, bunTakesTls } from './bun-socket.ts';

/** Where to connect: host and port, or a Unix socket path. */
export type SocketTarget = { path: string } | { host: string; port: number; family?: number };

/**
 * What the connection uses of a socket: a node:net or node:tls Socket as it is, or a
 * BunSocket. Events: `connect` (or `secureConnect` over TLS), `data` (a Buffer),
 * `timeout`, `error`, then `close` once.
 */
export interface RespSocket {
  readonly destroyed: boolean;
  write(chunk: Uint8Array): boolean;
  cork(): void;
  uncork(): void;
  end(): void;
  destroy(error?: Error): void;
  setNoDelay(noDelay?: boolean): unknown;
  setKeepAlive(enable?: boolean, initialDelay?: number): unknown;
  setTimeout(ms: number): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'connect' | 'secureConnect' | 'timeout' | 'close', listener: () => void): unknown;
}

/**
 * A socket to `target` (TLS when `tls` is given): Bun's own on Bun when it takes these TLS
 * options, else node:net or node:tls.
 */
export function openSocket(target: SocketTarget, tls: TlsOptions | undefined): RespSocket {
  const bun = bunConnect();
  if (bun !== undefined && bunTakesTls(tls)) return new BunSocket(bun, target, tls);
  return tls ? tlsConnect({ ...target, ...tls }) : netConnect(target);
}
