/**
 * The store's connection over Bun's own TCP socket (`Bun.connect`), TLS included, shaped as the
 * part of a node:net Socket that connection.ts uses (RespSocket, in socket.ts): the events, the order
 * of writes, `cork`, `end`, the idle timeout.
 *
 * Under Bun, node:net is a compatibility layer over this same socket with Node's streams on top
 * (a Readable that pushes every chunk, a Writable that buffers, corks and concatenates); the
 * connection needs none of that: it parses each chunk as it arrives and writes once per flush.
 */
import { EventEmitter } from 'node:events';
import { clearTimeout, setTimeout } from 'node:timers';
import type { ConnectionOptions as TlsOptions } from 'node:tls';

/** The subset of Bun's socket this uses. */
interface BunSocketHandle {
  write(data: Uint8Array): number;
  end(): void;
  terminate(): void;
  setNoDelay(noDelay: boolean): void;
  setKeepAlive(enable: boolean, initialDelay: number): boolean;
}

interface BunSocketHandlers {
  open(socket: BunSocketHandle): void;
  data(socket: BunSocketHandle, data: Buffer): void;
  drain(socket: BunSocketHandle): void;
  close(socket: BunSocketHandle, error?: Error): void;
  error(socket: BunSocketHandle, error: Error): void;
  connectError(socket: BunSocketHandle, error: Error): void;
  handshake(socket: BunSocketHandle, success: boolean, authorizationError: Error | null): void;
}

/** Where to connect: host and port (Bun picks the address family), or a Unix socket path. */
type BunTarget = { path: string } | { host: string; port: number };

/** Bun's `connect`. */
export type BunConnect = (options: ({ hostname: string; port: number } | { unix: string }) & { tls?: object; socket: BunSocketHandlers }) => Promise<BunSocketHandle>;

/** Bun's `connect`, or undefined off Bun. */
export function bunConnect(): BunConnect | undefined {
  const bun = (globalThis as { Bun?: { connect?: BunConnect } }).Bun;
  return typeof bun?.connect === 'function' ? bun.connect.bind(bun) : undefined;
}

/**
 * The node:tls options Bun's socket takes as they are. Anything else (a custom
 * checkServerIdentity, a secure context, ALPN, …) has no counterpart there: such a connection
 * stays on node:tls.
 */
const BUN_TLS_OPTIONS = new Set(['ca', 'cert', 'key', 'passphrase', 'rejectUnauthorized', 'servername']);

/** True when `tls` (absent: plain TCP) can be given to Bun's socket. */
export function bunTakesTls(tls: TlsOptions | undefined): boolean {
  return tls === undefined || Object.entries(tls).every(([name, value]) => value === undefined || BUN_TLS_OPTIONS.has(name));
}

/** A connection to `target` over Bun's socket; see the module comment. */
export class BunSocket extends EventEmitter {
  #handle: BunSocketHandle | undefined;
  /** Bytes Bun did not take yet, in order: they leave on its `drain`. */
  #queued: Uint8Array[] = [];
  /** Chunks written while corked. */
  #corked: Uint8Array[] | undefined;
  #open = false;
  #ending = false;
  #destroyed = false;
  #noDelay = false;
  #keepAlive: [boolean, number] | undefined;
  #timeoutMs = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(connect: BunConnect, target: BunTarget, tls: TlsOptions | undefined) {
    super();
    const handlers: BunSocketHandlers = {
      open: (socket) => {
        this.#handle = socket;
        // Over TLS the socket is usable once the handshake is done.
        if (tls === undefined) this.#opened('connect');
      },
      data: (_, data) => {
        if (this.#destroyed) return;
        if (this.#timeoutMs > 0) this.#touch();
        this.emit('data', data);
      },
      drain: () => this.#transmit(),
      close: (_, error) => this.#closed(error),
      error: (_, error) => this.destroy(error),
      connectError: (_, error) => this.#closed(error),
      handshake: (socket, success, authorizationError) => {
        this.#handle = socket;
        if (success && (authorizationError === null || tls?.rejectUnauthorized === false)) this.#opened('secureConnect');
        else this.destroy(authorizationError ?? new Error('TLS handshake failed'));
      },
    };
    const where = 'path' in target ? { unix: target.path } : { hostname: target.host, port: target.port };
    const tlsOption = tls === undefined ? undefined : { ...tls, ...(tls.servername ? { serverName: tls.servername } : {}) };
    connect({ ...where, ...(tlsOption ? { tls: tlsOption } : {}), socket: handlers }).catch((error: unknown) => this.#closed(error instanceof Error ? error : new Error(String(error))));
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  setNoDelay(noDelay = true): this {
    this.#noDelay = noDelay;
    if (this.#open) this.#handle!.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable = false, initialDelay = 0): this {
    this.#keepAlive = [enable, initialDelay];
    if (this.#open) this.#handle!.setKeepAlive(enable, initialDelay);
    return this;
  }

  /** Emits `timeout` after `ms` without a byte received (0: never), as node:net does. */
  setTimeout(ms: number): this {
    this.#timeoutMs = ms;
    this.#touch();
    return this;
  }

  cork(): void {
    this.#corked ??= [];
  }

  uncork(): void {
    const corked = this.#corked;
    this.#corked = undefined;
    if (corked === undefined || corked.length === 0) return;
    this.write(corked.length === 1 ? corked[0]! : Buffer.concat(corked));
  }

  /** Sends `chunk` behind what is queued; true when Bun took all of it at once. */
  write(chunk: Uint8Array): boolean {
    if (this.#destroyed || this.#ending) return false;
    if (this.#corked !== undefined) {
      this.#corked.push(chunk);
      return true;
    }
    const idle = this.#queued.length === 0;
    this.#queued.push(chunk);
    // Bytes already queued wait for Bun's `drain`: these join them.
    if (idle && this.#open) this.#transmit();
    return this.#queued.length === 0;
  }

  /** Closes the writing side once everything queued has left. */
  end(): void {
    if (this.#destroyed || this.#ending) return;
    this.#ending = true;
    if (this.#open && this.#queued.length === 0) this.#handle!.end();
  }

  /** Closes at once; `error`, if given, is emitted first, then `close`. */
  destroy(error?: Error): this {
    if (this.#destroyed) return this;
    if (error !== undefined) this.emit('error', error);
    this.#handle?.terminate();
    this.#closed(undefined);
    return this;
  }

  #opened(event: 'connect' | 'secureConnect'): void {
    if (this.#destroyed) {
      this.#handle?.terminate();
      return;
    }
    this.#open = true;
    if (this.#noDelay) this.#handle!.setNoDelay(true);
    if (this.#keepAlive) this.#handle!.setKeepAlive(...this.#keepAlive);
    this.emit(event);
    this.#transmit();
  }

  /** Hands Bun what is queued; what it does not take waits for its `drain`, in order. */
  #transmit(): void {
    const handle = this.#handle;
    if (!this.#open || handle === undefined) return;
    const chunks = this.#queued;
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const written = handle.write(chunk);
      if (written < chunk.length) {
        const rest = chunks.slice(i);
        if (written > 0) rest[0] = chunk.subarray(written);
        this.#queued = rest;
        return;
      }
    }
    this.#queued = [];
    if (this.#ending) handle.end();
  }

  /** The timeout clock restarts: a byte arrived, or the timeout changed. */
  #touch(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = this.#timeoutMs > 0 && !this.#destroyed ? setTimeout(() => this.emit('timeout'), this.#timeoutMs) : undefined;
  }

  /** The socket is gone (`error`: why); `close` is emitted once. */
  #closed(error: Error | undefined): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#open = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#queued = [];
    if (error !== undefined) this.emit('error', error);
    this.emit('close');
  }
}
