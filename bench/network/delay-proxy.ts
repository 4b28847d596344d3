/**
 * A user-space TCP delay proxy for loopback benchmarks (this kernel has no netem). Every chunk
 * from client to server waits `delayUs` before it is forwarded, so each request/reply round
 * trip gains that delay once; replies flow back untouched. With delay 0 it is a plain relay,
 * which is how its own cost is measured.
 *
 * Timers in Node are millisecond-grained, so the last stretch before a chunk is due is spent
 * polling with setImmediate: sub-millisecond delays cost this process a busy core while data
 * is queued. That is why it runs in its own process (see proxy-process.ts).
 *
 * Run as a child: `delay-proxy.ts <targetPort> <delayUs>`; it reports its port over IPC.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';

interface Queued {
  due: bigint;
  to: Socket;
  chunk: Buffer;
}

/** Starts the proxy on a free 127.0.0.1 port; resolves with the server once it listens. */
export function startDelayProxy(targetPort: number, delayUs: number): Promise<Server> {
  const delayNs = BigInt(Math.round(delayUs * 1000));
  // One FIFO for all connections: the delay is constant, so arrival order is due order.
  const queue: Queued[] = [];
  let head = 0;
  let pumping = false;

  const pump = (): void => {
    const now = process.hrtime.bigint();
    while (head < queue.length && queue[head]!.due <= now) {
      const q = queue[head++]!;
      if (!q.to.destroyed) q.to.write(q.chunk);
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
      pumping = false;
      return;
    }
    const waitMs = Number(queue[head]!.due - now) / 1e6;
    // Sleep through whole milliseconds, poll the rest: setTimeout alone would round 250 µs up to ~1 ms.
    if (waitMs > 2) setTimeout(pump, Math.floor(waitMs - 1));
    else setImmediate(pump);
  };

  const server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect(targetPort, '127.0.0.1');
    upstream.setNoDelay(true);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    upstream.pipe(client);
    if (delayNs === 0n) {
      client.pipe(upstream);
      return;
    }
    client.on('data', (chunk: Buffer) => {
      queue.push({ due: process.hrtime.bigint() + delayNs, to: upstream, chunk });
      if (!pumping) {
        pumping = true;
        setImmediate(pump);
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [targetPort, delayUs] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(targetPort) || !(delayUs! >= 0)) throw new Error('usage: delay-proxy.ts <targetPort> <delayUs>');
  const server = await startDelayProxy(targetPort!, delayUs!);
  const { port } = server.address() as { port: number };
  process.send?.({ port });
  // The parent asks for this process's CPU so the report can show what the proxy itself cost.
  process.on('message', (m) => {
    if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => process.exit(0));
}
