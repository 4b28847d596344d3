/**
 * Where a store's encoded commands go: its own connection (resp/connection.ts), or an iovalkey
 * client — one passed in by the user, or a cluster's node connection — through the client's
 * public `sendCommand` (client-channel.ts), so that iovalkey keeps managing that connection
 * (connect, TLS, auth, reconnect, its offline queue, redirections on a cluster) while the bytes
 * are the store's.
 */
import { encodeCommand } from './resp/connection.ts';
import { RespEncoder } from './resp/encoder.ts';
import type { RespValue } from './resp/parser.ts';
import { replyCheckOf } from './replies.ts';
import { CallCommand, type Redirector, type WireCommand } from './round.ts';

/** A destination for commands: encode into {@link encoder}, {@link expect} each one's reply, {@link flush} once. */
export interface Channel {
  readonly encoder: RespEncoder;
  /** The command just encoded, which started at byte `start` of the encoder's current take, answers to `command`. */
  expect(command: WireCommand, start: number): void;
  /** Sends what was encoded (at the end of this turn of the event loop), in one write where the transport allows. */
  flush(): void;
}

/**
 * A channel through a client's `sendCommand`: the commands of one turn of the event loop are
 * queued and handed over together at its end, as the store's own connection writes (see
 * RespConnection.flush); {@link send} is how one client takes them.
 */
export abstract class QueuedChannel implements Channel {
  readonly encoder = new RespEncoder(16 * 1024);
  #pending: WireCommand[] = [];
  #flushPending = false;

  expect(command: WireCommand, start: number): void {
    command.start = start;
    this.#pending.push(command);
  }

  flush(): void {
    if (this.#flushPending || this.#pending.length === 0) return;
    this.#flushPending = true;
    process.nextTick(this.#flushNow);
  }

  /** Hands over the turn's commands, in the order they were expected, with the bytes encoded for them. */
  protected abstract send(pending: readonly WireCommand[], chunks: Buffer[]): void;

  readonly #flushNow = (): void => {
    this.#flushPending = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    this.send(pending, this.encoder.take());
  };
}

/** Sends one command on `channel` and resolves with its reply: for the few commands off the hot path (replies.ts says what answers each). */
export function call(channel: Channel, args: ReadonlyArray<string | number | Uint8Array>): Promise<RespValue> {
  const command = new CallCommand(String(args[0]).toLowerCase(), replyCheckOf(args));
  const start = channel.encoder.size;
  encodeCommand(channel.encoder, args);
  channel.expect(command, start);
  channel.flush();
  return command.promise;
}

/** Where a key's commands go: a channel, and what a cluster needs to re-route them. */
export interface Route {
  readonly channel: Channel;
  /** The key's hash slot (cluster stores). */
  readonly slot?: number | undefined;
  /** The cluster client that takes over a command the node redirects. */
  readonly via?: Redirector | undefined;
}

/** Sends `command`, just encoded from byte `start` of `route`'s channel, with what a cluster needs to re-route it. */
export function expectOn(route: Route, command: WireCommand, start: number): void {
  command.slot = route.slot;
  command.via = route.via;
  route.channel.expect(command, start);
}
