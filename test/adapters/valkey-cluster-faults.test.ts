/**
 * The cluster store's node connections (iovalkey's) against a node that sends a reply a command
 * cannot have (issue 27, item 1): one master of the local Redis Cluster is reached through a
 * loopback proxy (iovalkey's `natMap`) that can slip a stray reply in front of the node's own.
 * The store drops that node's socket, fails every call answered on it as lost — none takes
 * another key's value — and finds the node again.
 */
import { Cluster } from 'iovalkey';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSlot } from '../../adapters/valkey/hash-slot.ts';
import { valkeyStore, type ValkeyClusterStore } from '../../adapters/valkey/index.ts';
import { StoreUnavailableError } from '../../src/store/index.ts';
import { eventually } from '../support/eventually.ts';
import { clusterNodes, requireCluster } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';

/** A byte-for-byte proxy to `host:port` that puts `stray` before the next bytes the node sends, once. */
async function strayProxy(host: string, port: number): Promise<{ port: number; connections: () => number; strayNext: (stray: string) => void; close: () => void }> {
  let stray: string | undefined;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    connections++;
    const node = createConnection({ host, port });
    for (const socket of [client, node]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => (socket === client ? node : client).destroy());
    }
    client.on('data', (chunk) => node.write(chunk));
    node.on('data', (chunk) => {
      if (stray !== undefined) {
        client.write(stray);
        stray = undefined;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    strayNext: (text) => void (stray = text),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe.runIf(requireCluster())('valkey cluster store: a node that sends a reply its command cannot have', () => {
  const seeds = () => clusterNodes!.split(',').map((seed) => ({ host: seed.split(':')[0]!, port: Number(seed.split(':')[1]) }));
  const ns = `vcf-${Date.now().toString(36)}`;
  // Two keys of one slot: their GETs leave on the same node connection, one after the other.
  const [first, second] = [`${ns}:{t}:a`, `${ns}:{t}:b`];
  let proxy: Awaited<ReturnType<typeof strayProxy>>;
  let store: ValkeyClusterStore<Cluster>;

  beforeAll(async () => {
    const probe = new Cluster(seeds());
    await probe.set(first, 'first value');
    await probe.set(second, 'second value');
    const [host, port] = probe.slots[hashSlot(first)]![0]!.split(':');
    await probe.quit();
    proxy = await strayProxy(host!, Number(port));
    store = valkeyStore<Cluster>({ cluster: seeds(), clientOptions: { natMap: { [`${host}:${port}`]: { host: '127.0.0.1', port: proxy.port } } } });
    expect(text(await store.get(first))).toBe('first value');
  });
  afterAll(async () => {
    await store?.close();
    await store?.client.quit().catch(() => store.client.disconnect());
    proxy?.close();
  });

  it.each([
    ['an integer before a GET', ':0\r\n', (s: ValkeyClusterStore<Cluster>) => s.get(first)],
    ['a bulk string before a DEL', '$1\r\nx\r\n', (s: ValkeyClusterStore<Cluster>) => s.delete([`${ns}:{t}:none`])],
    ['an integer before a SET', ':1\r\n', (s: ValkeyClusterStore<Cluster>) => s.set(`${ns}:{t}:c`, bytes('c'))],
  ])('%s drops the node connection: the call and the one behind it fail as lost, and the node is found again', async (_, stray, call) => {
    const before = proxy.connections();
    proxy.strayNext(stray);
    const outcomes = await Promise.all(
      [call(store), store.get(second)].map((answer) =>
        answer.then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome).toHaveProperty('error');
      const { error } = outcome as { error: unknown };
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/connection lost: .*cannot answer/);
    }
    let answer: unknown;
    await eventually(async () => {
      answer = await store.get(second).catch((error: unknown) => error);
      return !(answer instanceof Error);
    }, 'the store reads from the node again');
    expect(text(answer as Uint8Array)).toBe('second value');
    expect(proxy.connections()).toBeGreaterThan(before);
  });
});
