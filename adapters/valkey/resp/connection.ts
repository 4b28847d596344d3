/**
 * The store's own connection to one Valkey/Redis server, on the runtime's socket (socket.ts):
 * commands are encoded by the store into this connection's
 * {@link RespEncoder}, leave in one socket write per store call, and their replies come back
 * through the bounded {@link RespParser} in order, each to the {@link ReplySink} that asked.
 *
 * What a cache needs from a connection, and nothing more:
 * - it connects (TLS, AUTH with a user and password, SELECT, CLIENT SETNAME) and reconnects by
 *   itself after a drop, with a capped backoff (`retryStrategy`, as iovalkey's);
 * - it fails fast: once a connection attempt failed (ECONNREFUSED is known at once), every
 *   command is refused immediately until the connection is back, and the commands in flight
 *   when it dropped fail at once. Nothing is ever resent after a reconnect: a resent increment
 *   could count twice, and a cache prefers a miss to a late answer;
 * - before the very first attempt has failed, commands wait for it (a bounded queue);
 * - a reply that breaks the protocol, a reply nobody asked for, and a reply its command cannot
 *   have (a {@link ReplySink} refuses it: an integer for a GET) close the connection and fail
 *   everything in flight, so a hostile server can never hand one caller another's reply;
 * - a peer that stops answering is dropped: while commands wait, a connection on which no byte
 *   arrives for `socketTimeout` is closed and reconnected (one timer per connection, checked
 *   once per `socketTimeout`, never one per command);
 * - a first answer that is not RESP at all (an HTTP server, a TLS port) says what it is.
 */
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { clearTimeout, setTimeout } from 'node:timers';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { RespEncoder } from './encoder.ts';
import { DEFAULT_LIMITS, ReplyError, RespParser, RespProtocolError, type RespLimits, type RespValue } from './parser.ts';
import { type ReplySink, SinkQueue } from './reply-sinks.ts';
import { openSocket, type RespSocket } from './socket.ts';

/** How the connection is made and kept. */
export interface RespConnectionOptions {
  host?: string;
  port?: number;
  /** A Unix socket path instead of host and port. */
  path?: string;
  /** 4 or 6 to force an address family. */
  family?: number;
  /** TLS options; when present the connection is TLS (rediss://). */
  tls?: TlsOptions;
  username?: string;
  password?: string;
  /** The database to SELECT (0 by default). */
  db?: number;
  /** CLIENT SETNAME on every connection. */
  connectionName?: string;
  /** How long a connection attempt (handshake included) may take, ms. Default 10 000. */
  connectTimeout?: number;
  /** TCP keep-alive initial delay, ms (0: the system's). Default 0. */
  keepAlive?: number;
  /**
   * The delay before reconnect attempt `attempt` (1, 2, …), ms; anything but a number stops
   * reconnecting for good. Default: 100 ms per attempt, at most 2 s.
   */
  retryStrategy?: (attempt: number) => unknown;
  /** Connect on the first command instead of at once. */
  lazyConnect?: boolean;
  /** Bounds on what one reply may declare and hold (see parser.ts). */
  limits?: RespLimits;
  /**
   * While commands wait for their replies, how long the connection may stay without receiving a
   * byte before it is dropped (and reconnected), ms; `Infinity` never drops it. Checked once per
   * this period, so a silent peer is dropped within twice it. Default {@link DEFAULT_SOCKET_TIMEOUT}.
   */
  socketTimeout?: number;
  /**
   * A subscriber connection: replies that are Pub/Sub messages are emitted as `message` events
   * (channel, payload) instead of answering a command.
   */
  subscriber?: boolean;
}

/** Where the connection is in its life. */
export type ConnectionStatus = 'wait' | 'connecting' | 'ready' | 'reconnecting' | 'end';

/** Commands that may wait for the first connection: beyond this many, they are refused. */
const OFFLINE_LIMIT = 100_000;

const defaultRetry = (attempt: number): number => Math.min(attempt * 100, 2000);

/**
 * The default `socketTimeout`, ms: no byte for this long while commands wait means the peer is
 * gone (a healthy server answers the stores' commands in microseconds, and a long reply keeps
 * sending bytes), long past the cache's own call timeout (1 s).
 */
export const DEFAULT_SOCKET_TIMEOUT = 5000;

/** The error of the commands that could not be answered because the connection went away. */
export class ConnectionLostError extends Error {
  override name = 'ConnectionLostError';
}

/**
 * One connection; see the module comment. Events: `ready`, `close` (the socket closed, whatever
 * the reason), `error` (a connection error, a protocol error), and `message` on a subscriber.
 */
export class RespConnection extends EventEmitter {
  /** Commands are encoded here, then {@link flush}ed; each one's sink is given to {@link expect} as it is encoded. */
  readonly encoder = new RespEncoder();
  readonly #options: RespConnectionOptions;
  #status: ConnectionStatus = 'wait';
  /** Why the last attempt failed or the connection dropped; cleared when a connection is ready. */
  #lastError: Error | undefined;
  #socket: RespSocket | undefined;
  #parser: RespParser;
  /** Sinks of the commands written, in order. */
  readonly #inFlight = new SinkQueue();
  /** Before the first connection: sinks, and the bytes of their commands. */
  #offlineSinks: ReplySink[] = [];
  #offlineChunks: Buffer[] = [];
  #attempt = 0;
  #manualClose = false;
  /** A write of what was encoded is scheduled for the end of this turn. */
  #flushPending = false;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #socketTimeout: number;
  /** The reply deadline's one timer, armed while commands wait (see {@link #checkDeadline}). */
  #deadline: ReturnType<typeof setTimeout> | undefined;
  /** When the deadline was last armed, and whether a byte arrived since. */
  #armedAt = 0;
  #heard = false;

  constructor(options: RespConnectionOptions) {
    super();
    this.#options = options;
    this.#socketTimeout = options.socketTimeout ?? DEFAULT_SOCKET_TIMEOUT;
    this.#parser = this.#newParser();
    if (!options.lazyConnect) this.#connect();
  }

  /** Where the connection is. */
  get status(): ConnectionStatus {
    return this.#status;
  }

  /** Why the connection is not usable (the last connection error), or undefined while it is up or still coming up for the first time. */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** host:port or the socket path, for messages. */
  get address(): string {
    const { path, host, port } = this.#options;
    return path ?? `${host ?? '127.0.0.1'}:${port ?? 6379}`;
  }

  /**
   * The command just encoded answers to `sink`. Refused at once (the sink is rejected) when the
   * connection is known to be down; queued before the first connection.
   */
  expect(sink: ReplySink): void {
    if (this.#status === 'ready') this.#inFlight.push(sink);
    else if (this.#lastError === undefined && this.#status !== 'end' && this.#offlineSinks.length < OFFLINE_LIMIT) {
      if (this.#status === 'wait') this.#connect();
      this.#offlineSinks.push(sink);
    } else sink.reject(this.#refusal());
  }

  /**
   * Writes what was encoded, once the current turn of the event loop has run its callbacks
   * (process.nextTick): every call made in one turn — a lone lead call and the fold that follows
   * it, or many direct calls — leaves in one socket write. Before the first connection the bytes
   * wait for it.
   */
  flush(): void {
    if (this.#flushPending || this.encoder.size === 0) return;
    this.#flushPending = true;
    process.nextTick(this.#flushNow);
  }

  readonly #flushNow = (): void => {
    this.#flushPending = false;
    const chunks = this.encoder.take();
    if (chunks.length === 0) return;
    if (this.#status === 'ready') this.#write(chunks);
    else if (this.#offlineSinks.length > 0) for (const chunk of chunks) this.#offlineChunks.push(chunk);
    // Else every command was refused, or failed with the connection: nothing to send.
  };

  /**
   * Sends one command and resolves with its reply (rejects with an error reply): for the few
   * commands off the hot path. A reply `accepts` refuses is one the command cannot have: the
   * connection drops.
   */
  command(args: ReadonlyArray<string | number | Uint8Array>, accepts: (value: RespValue) => boolean): Promise<RespValue> {
    return new Promise((resolve, reject) => {
      encodeCommand(this.encoder, args);
      this.expect({ name: String(args[0]), resolve: (value) => settleIf(accepts(value), resolve, value), reject });
      this.flush();
    });
  }

  /**
   * Sends QUIT after the commands in flight (their replies still arrive) and closes; no
   * reconnect. A server that neither answers nor closes within a second is cut off.
   */
  async quit(): Promise<void> {
    this.#manualClose = true;
    clearTimeout(this.#reconnectTimer);
    const socket = this.#socket;
    if (this.#status !== 'ready' || socket === undefined) {
      this.disconnect();
      return;
    }
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    encodeCommand(this.encoder, ['QUIT']);
    this.#inFlight.push({ resolve: () => true, reject: () => {} });
    this.#write(this.encoder.take());
    socket.end();
    const cutOff = setTimeout(() => socket.destroy(), 1000);
    await closed;
    clearTimeout(cutOff);
  }

  /** Drops the socket (its peer stopped answering): commands in flight fail, and it reconnects as after any drop. */
  drop(reason = 'the server stopped answering'): void {
    this.#socket?.destroy(new ConnectionLostError(reason));
  }

  /** Closes at once; no reconnect. Commands in flight fail. */
  disconnect(): void {
    this.#manualClose = true;
    clearTimeout(this.#reconnectTimer);
    if (this.#socket) this.#socket.destroy();
    else this.#end(new ConnectionLostError('connection closed'));
  }

  #newParser(): RespParser {
    return new RespParser(this.#options.subscriber ? this.#onSubscriberReply : this.#onReply, this.#options.limits ?? DEFAULT_LIMITS);
  }

  readonly #onReply = (value: RespValue): void => {
    const sink = this.#inFlight.shift();
    if (sink === undefined) throw new RespProtocolError('a reply to no command');
    if (value instanceof ReplyError) sink.reject(value);
    else if (!sink.resolve(value)) {
      // Every reply after this one would answer the wrong caller: it fails with the rest in flight.
      this.#inFlight.unshift(sink);
      throw new RespProtocolError(`${describeReply(value)} to ${sink.name?.toUpperCase() ?? 'a command'}, which cannot answer it`);
    }
  };

  /** On a subscriber, `message` arrays are pushes, everything else answers a command. */
  readonly #onSubscriberReply = (value: RespValue): void => {
    if (Array.isArray(value) && value.length === 3 && Buffer.isBuffer(value[0]) && value[0].equals(MESSAGE)) {
      this.emit('message', value[1], value[2]);
      return;
    }
    this.#onReply(value);
  };

  #refusal(): Error {
    return new ConnectionLostError(this.#status === 'end' ? 'connection closed' : (this.#lastError?.message ?? 'connection closed'));
  }

  #connect(): void {
    this.#status = 'connecting';
    const o = this.#options;
    const target = o.path !== undefined ? { path: o.path } : { host: o.host ?? '127.0.0.1', port: o.port ?? 6379, ...(o.family ? { family: o.family } : {}) };
    const socket = openSocket(target, o.tls && { ...(o.host && !o.path && isIP(o.host) === 0 ? { servername: o.host } : {}), ...o.tls });
    this.#socket = socket;
    this.#parser = this.#newParser();
    socket.setNoDelay(true);
    socket.setTimeout(o.connectTimeout ?? 10_000);
    socket.once('timeout', () => socket.destroy(new Error(`connect ETIMEDOUT ${this.address}`)));
    socket.once(o.tls ? 'secureConnect' : 'connect', () => this.#handshake(socket));
    let first = true;
    socket.on('data', (chunk: Buffer) => {
      this.#heard = true;
      if (first) {
        first = false;
        // Not a Redis or Valkey server at all: say what it is, before the parser waits for a line end that may never come.
        const other = notResp(chunk);
        if (other !== undefined) {
          socket.destroy(other);
          return;
        }
      }
      try {
        this.#parser.feed(chunk);
      } catch (error) {
        // A broken reply, or one nobody asked for: nothing after it can be matched to its caller.
        socket.destroy(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.on('error', (error: Error) => {
      this.#lastError = error;
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
    socket.once('close', () => this.#onClose(socket));
  }

  /** AUTH, SELECT and SETNAME in one write; ready once all are answered. */
  #handshake(socket: RespSocket): void {
    if (socket !== this.#socket) return;
    const o = this.#options;
    socket.setKeepAlive(true, o.keepAlive ?? 0);
    const steps: Array<Promise<RespValue>> = [];
    const send = (args: Array<string | number>, tolerate?: RegExp) => {
      steps.push(
        new Promise<RespValue>((resolve, reject) => {
          encodeCommand(this.encoder, args);
          this.#inFlight.push({
            name: String(args[0]),
            // Each step answers OK (or an error reply): anything else is not a server in step with us.
            resolve: (value) => settleIf(value === 'OK', resolve, value),
            reject: (error) => (tolerate?.test(error.message) ? resolve(null) : reject(error)),
          });
        }),
      );
    };
    // A password for a server without one is not an error (iovalkey's behaviour, too).
    if (o.password !== undefined && o.password !== '') send(o.username ? ['AUTH', o.username, o.password] : ['AUTH', o.password], /no password is set|without any password configured/i);
    if (o.db) send(['SELECT', o.db]);
    if (o.connectionName) send(['CLIENT', 'SETNAME', o.connectionName]);
    if (steps.length === 0) {
      this.#ready(socket);
      return;
    }
    this.#write(this.encoder.take());
    Promise.all(steps).then(
      () => this.#ready(socket),
      (error: Error) => socket.destroy(error),
    );
  }

  #ready(socket: RespSocket): void {
    if (socket !== this.#socket || socket.destroyed) return;
    socket.setTimeout(0);
    this.#status = 'ready';
    this.#lastError = undefined;
    this.#attempt = 0;
    const sinks = this.#offlineSinks;
    const chunks = this.#offlineChunks;
    this.#offlineSinks = [];
    this.#offlineChunks = [];
    for (const sink of sinks) this.#inFlight.push(sink);
    if (chunks.length > 0) this.#write(chunks);
    this.emit('ready');
  }

  #onClose(socket: RespSocket): void {
    if (socket !== this.#socket) return;
    this.#socket = undefined;
    this.#parser.reset();
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
    const wasReady = this.#status === 'ready';
    const reason = this.#lastError?.message ?? 'connection closed';
    this.#lastError ??= new ConnectionLostError('connection closed');
    const lost = new ConnectionLostError(wasReady ? `connection lost: ${reason}` : reason);
    for (const sink of this.#inFlight.drain()) sink.reject(lost);
    if (this.#manualClose) {
      this.#end(lost);
      this.emit('close');
      return;
    }
    // The first attempt failed: what waited for it is refused now rather than after the backoff.
    this.#rejectOffline(lost);
    const delay = (this.#options.retryStrategy ?? defaultRetry)(++this.#attempt);
    if (typeof delay !== 'number') {
      this.#end(lost);
      this.emit('close');
      return;
    }
    this.#status = 'reconnecting';
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (!this.#manualClose) this.#connect();
    }, delay);
    // A reconnect timer must never keep a process alive on its own.
    (this.#reconnectTimer as { unref?: () => void }).unref?.();
    this.emit('close');
  }

  #end(error: Error): void {
    this.#status = 'end';
    this.#rejectOffline(error);
  }

  #rejectOffline(error: Error): void {
    const sinks = this.#offlineSinks;
    this.#offlineSinks = [];
    this.#offlineChunks = [];
    for (const sink of sinks) sink.reject(error);
  }

  #write(chunks: readonly Buffer[]): void {
    const socket = this.#socket!;
    if (this.#deadline === undefined && this.#socketTimeout !== Infinity) this.#armDeadline();
    if (chunks.length === 1) {
      socket.write(chunks[0]!);
      return;
    }
    socket.cork();
    for (const chunk of chunks) socket.write(chunk);
    socket.uncork();
  }

  /** Starts a period of the reply deadline: commands wait from now on, and nothing was heard yet. */
  #armDeadline(): void {
    this.#armedAt = Date.now();
    this.#heard = false;
    this.#deadline = setTimeout(this.#checkDeadline, this.#socketTimeout);
    this.#deadline.unref();
  }

  /**
   * Once per `socketTimeout` while commands wait: a period in which no byte arrived, though a
   * command waited through all of it (one did when it was armed: replies come in order), means
   * the peer is gone. A check that ran late (the event loop was held) counts as heard: the
   * replies may be waiting to be read.
   */
  readonly #checkDeadline = (): void => {
    this.#deadline = undefined;
    if (this.#inFlight.length === 0 || this.#status !== 'ready') return;
    const late = Date.now() - this.#armedAt > 1.5 * this.#socketTimeout;
    if (this.#heard || late) this.#armDeadline();
    else this.drop(`no reply within ${this.#socketTimeout} ms (socketTimeout): the server stopped answering`);
  };
}

/** Resolves with `value` when it `fits`; says whether it did (a {@link ReplySink}'s answer). */
function settleIf(fits: boolean, resolve: (value: RespValue) => void, value: RespValue): boolean {
  if (fits) resolve(value);
  return fits;
}

/** A reply's type, for the message of a reply its command cannot have. */
function describeReply(value: RespValue): string {
  if (value === null) return 'a nil reply';
  if (typeof value === 'number') return 'an integer reply';
  if (typeof value === 'string') return 'a simple string reply';
  if (Array.isArray(value)) return `an array reply of ${value.length}`;
  return 'a bulk string reply';
}

/** The bytes a RESP reply may start with: RESP2's, and RESP3's (refused by the parser, but a Redis server's all the same). */
const RESP_TYPES = new Set([...'$*:+-_,#!=(%~>|'].map((c) => c.charCodeAt(0)));

/** Longest piece of a non-RESP answer quoted in its error. */
const QUOTED_BYTES = 40;

/**
 * When the first bytes a server ever sent on a connection are not RESP, what it is instead, as
 * an error that says so (and undefined when they are RESP): an HTTP server, a TLS port, or
 * something else, quoted.
 */
export function notResp(chunk: Buffer): RespProtocolError | undefined {
  if (chunk.length === 0 || RESP_TYPES.has(chunk[0]!)) return undefined;
  // A TLS record (handshake 0x16, alert 0x15) of version 3.x.
  if ((chunk[0] === 0x15 || chunk[0] === 0x16) && chunk[1] === 0x03) return new RespProtocolError('the server answered with TLS: it expects a rediss:// (or valkeys://) URL');
  let end = 0;
  while (end < chunk.length && end < QUOTED_BYTES && chunk[end] !== 0x0d && chunk[end] !== 0x0a) end++;
  const quoted = JSON.stringify(chunk.toString('latin1', 0, end).replace(/[^\x20-\x7e]/g, '?'));
  if (chunk.toString('latin1', 0, 5) === 'HTTP/') {
    return new RespProtocolError(
      `the server answered in HTTP (${quoted}): it is not a Redis or Valkey server; check the URL's port (for Redis over HTTP, use upstashStore from cachette/adapters/upstash)`,
    );
  }
  return new RespProtocolError(`the server does not speak RESP (it answered ${quoted}): it is not a Redis or Valkey server; check the URL's host and port`);
}

const MESSAGE = Buffer.from('message');

/** Encodes one command from its arguments (strings as UTF-8, numbers in decimal, bytes as they are). */
export function encodeCommand(encoder: RespEncoder, args: ReadonlyArray<string | number | Uint8Array>): void {
  encoder.array(args.length);
  for (const arg of args) {
    if (typeof arg === 'string') encoder.string(arg);
    else if (typeof arg === 'number') encoder.number(arg);
    else encoder.bytes(arg);
  }
}
