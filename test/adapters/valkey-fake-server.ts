/**
 * A fake Valkey server on a real loopback socket, for what a real server never does. It reads the
 * commands the Valkey stores send (RESP arrays of bulk strings), answers them as a server would
 * from a key space of its own — enough for every command the stores use, their scripts, tracking
 * and iovalkey's ready check — and lets a test change what one connection gets: a stray reply
 * before the real one, silence, or bytes of its own.
 */
import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { COMPARE_AND_DELETE_LUA, EXPIRE_ENTRIES_LUA, INCR_WITH_TTL_LUA, READ_WITH_GENERATIONS_LUA, WRITE_GENERATIONS_LUA } from '../../adapters/shared/redis-protocol.ts';

/** One client connection, numbered from 1 in the order they were accepted. */
export interface FakeConnection {
  readonly n: number;
  readonly socket: Socket;
  /** Commands received so far, names in upper case. */
  readonly commands: string[][];
}

/**
 * What `connection` answers to `command` instead of the server's answer: RESP text, `null` for no
 * answer at all, or undefined for the server's answer. `real()` computes that answer (running
 * the command on the key space), so a stray reply can go before it.
 */
export type Answer = (connection: FakeConnection, command: readonly string[], real: () => string) => string | null | undefined;

/** A running fake server. */
export interface FakeServer {
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  /** Its key space (values as latin1 text: byte for byte). */
  readonly data: Map<string, string>;
  /** Connections accepted so far. */
  connections(): number;
  /** The connections, in order. */
  readonly accepted: FakeConnection[];
  close(): Promise<void>;
}

/** RESP for a bulk string, nil, an integer, a simple string, an array. */
export const resp = {
  bulk: (text: string | undefined) => (text === undefined ? '$-1\r\n' : `$${Buffer.byteLength(text, 'latin1')}\r\n${text}\r\n`),
  int: (n: number) => `:${n}\r\n`,
  simple: (text: string) => `+${text}\r\n`,
  array: (items: readonly string[]) => `*${items.length}\r\n${items.join('')}`,
};

const SCRIPTS = new Map(
  Object.entries({
    compareAndDelete: COMPARE_AND_DELETE_LUA,
    expireEntries: EXPIRE_ENTRIES_LUA,
    incrWithTtl: INCR_WITH_TTL_LUA,
    readWithGenerations: READ_WITH_GENERATIONS_LUA,
    writeGenerations: WRITE_GENERATIONS_LUA,
  }).flatMap(([name, lua]) => [
    [lua, name],
    [createHash('sha1').update(lua).digest('hex'), name],
  ]),
);

/** Starts a fake server; `answer` changes what a connection gets. */
export async function fakeValkey(answer: Answer = () => undefined): Promise<FakeServer> {
  const data = new Map<string, string>();
  const accepted: FakeConnection[] = [];
  let ids = 0;
  const server = createServer((socket) => {
    const connection: FakeConnection = { n: accepted.length + 1, socket, commands: [] };
    const id = ++ids;
    accepted.push(connection);
    const reader = new CommandReader();
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      let out = '';
      for (const command of reader.read(chunk)) {
        command[0] = command[0]!.toUpperCase();
        connection.commands.push(command);
        const reply = answer(connection, command, () => run(data, command, id));
        if (reply === null) continue;
        out += reply ?? run(data, command, id);
        if (command[0] === 'QUIT') {
          socket.end(out);
          return;
        }
      }
      if (out !== '' && !socket.destroyed) socket.write(out, 'latin1');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    data,
    accepted,
    connections: () => accepted.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of accepted) connection.socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Commands (arrays of bulk strings) from the chunks of one connection, read once each: a command of a million keys costs what its bytes do. */
class CommandReader {
  #buffer: Buffer = Buffer.alloc(0);
  #at = 0;
  /** The command being read: its arguments so far, and how many it has. */
  #args: string[] | undefined;
  #count = 0;

  /** The commands `chunk` completes. */
  read(chunk: Buffer): string[][] {
    this.#buffer = this.#at < this.#buffer.length ? Buffer.concat([this.#buffer.subarray(this.#at), chunk]) : chunk;
    this.#at = 0;
    const done: string[][] = [];
    for (;;) {
      if (this.#args === undefined) {
        const head = this.#line();
        if (head === undefined) break;
        this.#args = [];
        this.#count = Number(head);
      }
      while (this.#args.length < this.#count) {
        const start = this.#at;
        const size = this.#line();
        if (size === undefined) break;
        const end = this.#at + Number(size);
        if (end + 2 > this.#buffer.length) {
          this.#at = start;
          break;
        }
        this.#args.push(this.#buffer.toString('latin1', this.#at, end));
        this.#at = end + 2;
      }
      if (this.#args.length < this.#count) break;
      done.push(this.#args);
      this.#args = undefined;
    }
    return done;
  }

  /** The text of the line at the read position (its type byte left out), moving past it; undefined while it is incomplete. */
  #line(): string | undefined {
    const end = this.#buffer.indexOf('\r\n', this.#at, 'latin1');
    if (end < 0) return undefined;
    const text = this.#buffer.toString('latin1', this.#at + 1, end);
    this.#at = end + 2;
    return text;
  }
}

/** The server's answer to `command` on the key space `data`, from connection number `id`. */
function run(data: Map<string, string>, command: readonly string[], id: number): string {
  const [name, ...args] = command;
  switch (name) {
    case 'GET':
      return resp.bulk(data.get(args[0]!));
    case 'MGET':
      return resp.array(args.map((key) => resp.bulk(data.get(key))));
    case 'SET': {
      if (args.some((arg) => arg.toUpperCase() === 'NX') && data.has(args[0]!)) return resp.bulk(undefined);
      data.set(args[0]!, args[1]!);
      return resp.simple('OK');
    }
    case 'MSET':
      for (let i = 0; i < args.length; i += 2) data.set(args[i]!, args[i + 1]!);
      return resp.simple('OK');
    case 'DEL':
    case 'UNLINK':
      return resp.int(args.filter((key) => data.delete(key)).length);
    case 'INCRBY':
      return resp.int(increment(data, args[0]!, Number(args[1])));
    case 'EVAL':
    case 'EVALSHA':
      return script(data, SCRIPTS.get(args[0]!), args.slice(2, 2 + Number(args[1])), args.slice(2 + Number(args[1])));
    case 'SCAN': {
      const prefix = args[2]!.replace(/\*$/, '').replace(/\\(.)/g, '$1');
      return resp.array([resp.bulk('0'), resp.array([...data.keys()].filter((key) => key.startsWith(prefix)).map((key) => resp.bulk(key)))]);
    }
    case 'PING':
      return resp.simple('PONG');
    case 'CLIENT':
      return args[0]!.toUpperCase() === 'ID' ? resp.int(id) : resp.simple('OK');
    case 'SUBSCRIBE':
      return resp.array([resp.bulk('subscribe'), resp.bulk(args[0]), resp.int(1)]);
    case 'AUTH':
    case 'SELECT':
    case 'QUIT':
      return resp.simple('OK');
    case 'INFO':
      return resp.bulk('# Server\r\nredis_version:7.0.15\r\nloading:0\r\n');
    default:
      return `-ERR unknown command '${name}'\r\n`;
  }
}

function increment(data: Map<string, string>, key: string, by: number): number {
  const next = Number(data.get(key) ?? 0) + by;
  data.set(key, String(next));
  return next;
}

/** The stores' scripts, as they behave on a real server (tags never fenced, nothing to expire). */
function script(data: Map<string, string>, which: string | undefined, keys: readonly string[], args: readonly string[]): string {
  switch (which) {
    case 'incrWithTtl':
      return resp.int(increment(data, keys[0]!, Number(args[0])));
    case 'compareAndDelete':
      return resp.int(data.get(keys[0]!) === args[0] && data.delete(keys[0]!) ? 1 : 0);
    case 'readWithGenerations': {
      const n = Number(args[0]);
      const out = keys.slice(0, n).map((key) => resp.bulk(data.get(key)));
      for (let j = n; j < keys.length; j += 3) {
        if (!data.has(keys[j]!)) data.set(keys[j]!, args[1]!);
        out.push(resp.bulk(data.get(keys[j]!)), resp.int(0), resp.bulk(undefined));
      }
      return resp.array(out);
    }
    case 'writeGenerations':
      for (let j = 0; j < keys.length; j += 3) data.set(keys[j]!, data.has(keys[j]!) ? String(Number(data.get(keys[j]!)) + 1) : args[1]!);
      return resp.int(1);
    case 'expireEntries':
      return resp.int(0);
    default:
      return '-NOSCRIPT No matching script\r\n';
  }
}
