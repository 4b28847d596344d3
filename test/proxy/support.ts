/**
 * What the proxy tests share: an origin that records what reaches it, a raw-socket origin for
 * framing faults, a raw-socket client (fetch would normalise away exactly what is tested), and
 * a proxy in front of an origin.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import type { CliIo } from '../../products/shared/command.ts';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../products/proxy/index.ts';

/** Something a test opens and must close. */
interface Closable {
  close(): Promise<void>;
}

/**
 * Registers an afterEach that closes, newest first, what the returned function was handed
 * during the test: `const origin = closing(await recordingOrigin(…))`.
 */
export function closesAfterEach(): <T extends Closable>(thing: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  });
  return (thing) => {
    open.push(thing);
    return thing;
  };
}

/** Sends each case's bytes on its own connection and expects `status` for all (`what` names the case). */
export async function expectStatusForAll(port: number, cases: ReadonlyArray<readonly [what: string, bytes: string]>, status: number): Promise<void> {
  for (const [what, bytes] of cases) {
    const reply = await rawExchange(port, bytes);
    if (statusOf(reply) !== status) throw new Error(`${what}: expected ${status}, got ${JSON.stringify(reply.text.slice(0, 200))}`);
  }
}

/** One request as the origin received it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** False when the request ended before its declared body (the proxy cut it). */
  complete: boolean;
  /** Which origin connection carried it (1-based, in order of arrival). */
  connection: number;
}

/** A node:http origin that records every request and answers through `handler`. */
export interface RecordingOrigin {
  url: string;
  received: Received[];
  /** Connections opened to the origin so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * Starts a recording origin. `handler` answers once the request body has been read (or cut);
 * GET and HEAD are answered at once, as most frameworks do, without waiting for a body.
 */
export async function recordingOrigin(handler: (req: IncomingMessage, res: ServerResponse, received: Received) => void): Promise<RecordingOrigin> {
  const received: Received[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const entry: Received = { method: req.method!, url: req.url!, headers: req.headers, body: '', complete: true, connection: (req.socket as Socket & { n?: number }).n ?? 0 };
    received.push(entry);
    if (req.method === 'GET' || req.method === 'HEAD') return handler(req, res, entry);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      entry.body = Buffer.concat(chunks).toString();
      handler(req, res, entry);
    });
    req.on('aborted', () => {
      entry.complete = false;
      entry.body = Buffer.concat(chunks).toString();
    });
    req.on('error', () => {});
  });
  server.on('connection', (socket: Socket & { n?: number }) => (socket.n = ++connections));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A TCP origin that answers every request head with `respond(head, socket)` (for framing faults Node would not write). */
export async function rawOrigin(respond: (head: string, socket: Socket) => void): Promise<{ url: string; closedConnections(): number; close(): Promise<void> }> {
  let closed = 0;
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) !== -1) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        respond(head, socket);
      }
    });
    socket.on('close', () => {
      closed++;
      sockets.delete(socket);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    closedConnections: () => closed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a raw exchange produced: the bytes received, and whether the server closed the connection. */
export interface RawReply {
  text: string;
  closedByServer: boolean;
}

/** Longest wait for the first byte of a reply: only a proxy that never answers reaches it. */
const FIRST_BYTE_LIMIT_MS = 10_000;

/**
 * Writes `bytes` to `port` on 127.0.0.1 and collects what comes back until the server closes
 * the connection, or `settleMs` pass without new bytes once some have arrived (a loaded
 * machine that is slow to answer at all is waited for, up to 10 s).
 */
export function rawExchange(port: number, bytes: string, settleMs = 300): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: ReturnType<typeof setTimeout>;
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), ms);
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      arm(settleMs);
    });
    socket.on('end', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(bytes);
    arm(FIRST_BYTE_LIMIT_MS);
  });
}

/** A GET over a raw socket with `Connection: close`, answered in full. */
export async function rawGet(port: number, target: string, headers: Record<string, string> = {}): Promise<RawReply> {
  const lines = Object.entries({ host: 'site.test', ...headers })
    .map(([n, v]) => `${n}: ${v}\r\n`)
    .join('');
  return rawExchange(port, `GET ${target} HTTP/1.1\r\n${lines}connection: close\r\n\r\n`, 2000);
}

/** The status line's code of a raw reply (the first response in it). */
export function statusOf(reply: RawReply | string): number {
  const text = typeof reply === 'string' ? reply : reply.text;
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
}

/** One header of the final response in a raw reply (after any 1xx), lowercase name. */
export function headerOf(reply: RawReply, name: string): string | undefined {
  const final = reply.text.split(/\r\n\r\n/).find((head) => /^HTTP\/1\.[01] [2-5]/.test(head)) ?? '';
  return new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(final)?.[1];
}

/** A memory-store proxy in front of `origin`; stop it with `close()`. */
export function proxyFor(origin: string, options: Partial<ProxyOptions> = {}): Promise<RunningProxy> {
  return startProxy({ origin, store: memoryStore(), ...options });
}

/** Answers with `body` and max-age=60. */
export function cacheable(res: ServerResponse, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=60', ...headers });
  res.end(body);
}

/** Polls `condition` (real I/O settles on its own schedule), failing after ten seconds (a loaded machine is slow, not wrong). */
export async function waitFor(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`${what}: not met within 10 s`);
}

/** An in-memory terminal for `runCli`: what it printed, and the environment it reads. */
export function terminal(env: Record<string, string> = {}): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line) => void stdout.push(line), err: (line) => void stderr.push(line), env };
}

/** A `cachette proxy` process, once it printed its URL. */
export interface ProxyProcess {
  url: string;
  /** Sends SIGTERM and resolves the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `command args` (a `cachette proxy …` command line) and waits for the URL it prints. */
export async function spawnProxyCommand(command: string, args: readonly string[], cwd?: string): Promise<ProxyProcess> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /cachette proxy: (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`cachette proxy exited with ${code}: ${stderr}`)));
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
