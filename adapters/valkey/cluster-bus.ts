/**
 * Where the cluster store's coherence bus lives: one node, the same for every process. Classic
 * pub/sub on a cluster delivers a message to subscribers on every node, but PUBLISH counts only
 * the receivers on the node it ran on, and a writer waits for as many acknowledgements as that
 * count: so every holder subscribes, and every writer publishes, on one agreed node. Slots
 * moving between masters change nothing there (channels belong to no slot); a failover of
 * that node drops every holder's subscription, which flushes their copies, and writes wait one
 * lease at most meanwhile. An invalidation is published once its write answered (the write
 * went to another node: no connection orders the two), which costs writes one round trip.
 *
 * The node is reached on two connections of the store's own (resp/connection.ts), with the
 * credentials and TLS of the cluster's node connections.
 */
import type { Cluster } from 'iovalkey';
import type { RespConnectionOptions } from './resp/connection.ts';
import { OwnLink } from './server-links.ts';

/** The links to the bus node: `busNode` when named, else the startup node that sorts first. */
export function busNodeLink(client: Cluster, busNode: string | undefined): OwnLink {
  const [host, port] = splitAddress(busNode ?? firstStartupNode(client));
  const node = client.options.redisOptions ?? {};
  const options: RespConnectionOptions = { host, port, connectTimeout: 2000 };
  if (node.username !== undefined) options.username = node.username;
  if (node.password !== undefined) options.password = node.password;
  if (node.tls !== undefined) options.tls = node.tls;
  return new OwnLink(options, () => {});
}

function firstStartupNode(client: Cluster): string {
  const nodes = (client as unknown as { startupNodes?: unknown }).startupNodes;
  const addresses = (Array.isArray(nodes) ? nodes : []).map((node: unknown) =>
    typeof node === 'object' && node !== null ? `${(node as { host?: string }).host ?? '127.0.0.1'}:${(node as { port?: number }).port ?? 6379}` : String(node),
  );
  if (addresses.length === 0) throw new TypeError('valkeyStore({ cluster }): the cluster has no startup nodes to put the coherence bus on; name one as "busNode"');
  return addresses.sort()[0]!;
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError(`valkeyStore({ cluster }): "busNode" must be "host:port", got ${JSON.stringify(address)}`);
  return [address.slice(0, at).replace(/^\[|\]$/g, ''), port];
}
