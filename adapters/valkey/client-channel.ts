/**
 * A channel through an iovalkey client (one passed in, one the store opened for iovalkey-only
 * options, a cluster or one of its node connections): the store's encoded commands are handed to
 * the client's `sendCommand`, which keeps managing the connection.
 */
import type { Cluster, Redis } from 'iovalkey';
import { QueuedChannel } from './channel.ts';
import { sliceChunks } from './resp/encoder.ts';
import type { WireCommand } from './round.ts';

/**
 * Commands through an iovalkey client's `sendCommand`: each carries its slice of the bytes
 * encoded for the call, and a ready connection's socket is corked while they are handed over, so
 * that they leave in one write.
 */
export class ClientChannel extends QueuedChannel {
  readonly client: Redis | Cluster;

  constructor(client: Redis | Cluster) {
    super();
    this.client = client;
  }

  protected send(pending: readonly WireCommand[], chunks: Buffer[]): void {
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
  }
}
