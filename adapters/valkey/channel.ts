/**
 * Where a store's encoded commands go: its own connection (resp/connection.ts), or an iovalkey
 * client — one passed in by the user, or a cluster's node connection — through the client's
 * public `sendCommand`, so that iovalkey keeps managing that connection (connect, TLS, auth,
 * reconnect, its offline queue, redirections on a cluster) while the bytes are the store's.
 */
import type { Cluster, Redis } from 'iovalkey';
import { encodeCommand } from './resp/connection.ts';
import { RespEncoder, sliceChunks } from './resp/encoder.ts';
import type { RespValue } from './resp/parser.ts';
import { CallCommand, type WireCommand } from './round.ts';

/** A destination for commands: encode into {@link encoder}, {@link expect} each one's reply, {@link flush} once. */
export interface Channel {
  readonly encoder: RespEncoder;
  /** The command just encoded, which started at byte `start` of the encoder's current take, answers to `command`. */
  expect(command: WireCommand, start: number): void;
  /** Sends what was encoded (at the end of this turn of the event loop), in one write where the transport allows. */
  flush(): void;
}

/** Sends one command on `channel` and resolves with its reply: for the few commands off the hot path. */
export function call(channel: Channel, args: ReadonlyArray<string | number | Uint8Array>): Promise<RespValue> {
  const command = new CallCommand(String(args[0]).toLowerCase());
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
  readonly via?: Cluster | undefined;
}

/** Sends `command`, just encoded from byte `start` of `route`'s channel, with what a cluster needs to re-route it. */
export function expectOn(route: Route, command: WireCommand, start: number): void {
  command.slot = route.slot;
  command.via = route.via;
  route.channel.expect(command, start);
}

/**
 * Commands through an iovalkey client's `sendCommand`: each carries its slice of the bytes
 * encoded for the call, and a ready connection's socket is corked while they are handed over, so
 * that they leave in one write.
 */
export class ClientChannel implements Channel {
  readonly encoder = new RespEncoder(16 * 1024);
  readonly client: Redis | Cluster;
  #pending: WireCommand[] = [];
  #flushPending = false;

  constructor(client: Redis | Cluster) {
    this.client = client;
  }

  expect(command: WireCommand, start: number): void {
    command.start = start;
    this.#pending.push(command);
  }

  /** Hands the commands over at the end of this turn of the event loop, as the store's own connection writes (see RespConnection.flush). */
  flush(): void {
    if (this.#flushPending || this.#pending.length === 0) return;
    this.#flushPending = true;
    process.nextTick(this.#flushNow);
  }

  readonly #flushNow = (): void => {
    this.#flushPending = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    const chunks = this.encoder.take();
    const total = chunks.length === 1 ? chunks[0]!.length : chunks.reduce((n, chunk) => n + chunk.length, 0);
    const client = this.client;
    const stream = !client.isCluster && client.status === 'ready' ? (client as Redis).stream : undefined;
    stream?.cork();
    try {
      for (let i = 0; i < pending.length; i++) {
        const command = pending[i]!;
        const end = i + 1 < pending.length ? pending[i + 1]!.start : total;
        command.bytes = chunks.length === 1 ? chunks[0]!.subarray(command.start, end) : sliceChunks(chunks, command.start, end);
        client.sendCommand(command as never);
      }
    } finally {
      stream?.uncork();
    }
  };
}
