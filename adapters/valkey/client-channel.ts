/**
 * A channel through an iovalkey client (one passed in, one the store opened for iovalkey-only
 * options, a cluster or one of its node connections): the store's encoded commands are handed to
 * the client's `sendCommand`, which keeps managing the connection.
 */
import type { Cluster, Redis } from 'iovalkey';
import type { Channel } from './channel.ts';
import { RespEncoder, sliceChunks } from './resp/encoder.ts';
import type { WireCommand } from './round.ts';

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
