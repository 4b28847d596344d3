/**
 * One store call in flight, and where each of its commands' replies goes.
 *
 * A store call (a lone `get`, or a tick's `pipeline`) is a {@link Round}: one result slot per op,
 * one promise for the caller. Each command it sends carries a {@link CommandSink} that turns the
 * reply into results as it arrives — no promise per command, no per-command closure. The sinks
 * are shaped like iovalkey's `Command` (name, args, toWritable, resolve, reject, getSlot), so the
 * same objects travel on the store's own connection and through an iovalkey client's queue
 * (a client passed in, a cluster's node connections), which also resends them after a
 * redirection.
 */
import type { Cluster } from 'iovalkey';
import { StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';
import type { StoreOp } from '../../src/store/types.ts';
import type { ReplySink } from './resp/connection.ts';
import type { RespValue } from './resp/parser.ts';
import { HEALTH_REPLIES } from '../shared/redis-protocol.ts';

/**
 * Turns a failure into what a result slot holds: an error reply about the command itself into a
 * {@link StoreRefusedError} (it never counts against the store's health), a lost or refused
 * connection into a {@link StoreUnavailableError} naming the store; health replies (OOM, LOADING…)
 * stay as they are, and count.
 */
export function classify(error: Error, where: string): Error {
  if (error.name === 'ReplyError') return HEALTH_REPLIES.test(error.message) ? error : new StoreRefusedError(error.message, { cause: error });
  if (error instanceof StoreRefusedError || error instanceof StoreUnavailableError) return error;
  return new StoreUnavailableError(`${where}: ${error.message}`, { cause: error });
}

/**
 * One store call: its result slots, and the promise its caller holds. A slot holds what its op
 * produced (a StoreOpResult for pipeline ops; a boolean or a generation read for the lone
 * capability calls), or the Error it failed with.
 */
export class Round {
  readonly results: unknown[];
  readonly promise: Promise<never>;
  /** A lone call answers with its one op's result (or rejects with its error); a pipeline with every slot. */
  readonly #lone: boolean;
  /** Names the store in the errors it makes ("valkey 127.0.0.1:6379"). */
  readonly #where: string;
  /** Sinks not answered yet, plus one while commands are still being issued. */
  #pending = 1;
  #resolve!: (value: never) => void;
  #reject!: (error: unknown) => void;
  /** The last failure classified, and what it became: one connection loss fails many sinks with one error. */
  #raw: Error | undefined;
  #classified: Error | undefined;

  constructor(size: number, lone: boolean, where: string) {
    this.results = new Array<unknown>(size);
    this.#lone = lone;
    this.#where = where;
    this.promise = new Promise<never>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** A command was sent for this round: it waits for one more answer. */
  hold(): void {
    this.#pending++;
  }

  /** One held command was answered. */
  release(): void {
    if (--this.#pending === 0) this.#settle();
  }

  /** Every command is issued: the round settles once the last answer is in (at once if none is pending). */
  seal(): void {
    this.release();
  }

  /** Puts the failure `error` into result slots `from` to `to` (exclusive), keeping slots that already failed. */
  fail(from: number, to: number, error: Error): void {
    const failure = this.classify(error);
    const results = this.results;
    for (let i = from; i < to; i++) if (!(results[i] instanceof Error)) results[i] = failure;
  }

  /** `error` as a result slot holds it (see {@link classify}), made once for a run of sinks failing alike. */
  classify(error: Error): Error {
    if (error !== this.#raw) {
      this.#raw = error;
      this.#classified = classify(error, this.#where);
    }
    return this.#classified!;
  }

  #settle(): void {
    const results = this.results;
    if (this.#lone) {
      const result = results[0];
      if (result instanceof Error) this.#reject(result);
      else this.#resolve(result as never);
      return;
    }
    // Every op failing for the same reason is the connection failing: one failure, not many.
    const first = results[0];
    if (first instanceof Error && !(first instanceof StoreRefusedError) && results.every((r) => r === first || (r instanceof Error && r.message === first.message))) {
      this.#reject(first);
      return;
    }
    this.#resolve(results as never);
  }
}

const NO_ARGS: readonly unknown[] = [];

/** Replies that mean "ask another node": an iovalkey Cluster follows them when given the command. */
const REDIRECTION = /^(MOVED|ASK|TRYAGAIN) /;

/**
 * A command on the wire, shaped like an iovalkey `Command` (see the module comment): it is
 * answered exactly once, whoever calls (the connection, iovalkey's queue, a timeout).
 */
export abstract class WireCommand implements ReplySink {
  /** The command's name in lower case, for iovalkey's flags and error messages. */
  readonly name: string;
  /** iovalkey attaches these to error replies; the bytes are already encoded. */
  readonly args = NO_ARGS;
  /** The command's bytes once flushed through an iovalkey client (which writes them, and may resend them). */
  bytes: Buffer | undefined;
  /** Where the command starts in its encoder's current take (see RespEncoder.size). */
  start = 0;
  /** The hash slot of the command's keys, on a cluster. */
  slot: number | undefined;
  /** Set when sent straight to a cluster node: a redirection is then handed to the cluster client. */
  via: Cluster | undefined;
  #answered = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(name: string) {
    this.name = name;
  }

  /** For iovalkey: the bytes to write. */
  toWritable(): Buffer {
    return this.bytes!;
  }

  /** For iovalkey's Cluster: which slot routes the command. */
  getSlot(): number | undefined {
    return this.slot;
  }

  /** For iovalkey's `commandTimeout`: fails the command if it is not answered within `ms`. */
  setTimeout(ms: number): void {
    this.#timer ??= setTimeout(() => this.reject(new Error('Command timed out')), ms);
  }

  resolve(value: RespValue): void {
    if (!this.#settle()) return;
    this.onReply(value);
    this.answered();
  }

  reject(error: Error): void {
    const cluster = this.via;
    if (cluster !== undefined && REDIRECTION.test(error.message)) {
      // The slot moved (or is moving): the cluster client finds its node, follows ASK, refreshes its map.
      this.via = undefined;
      cluster.sendCommand(this as never);
      return;
    }
    if (!this.#settle()) return;
    this.onError(error);
    this.answered();
  }

  /** Decodes the reply. */
  protected abstract onReply(value: RespValue): void;

  /** Takes the failure. */
  protected abstract onError(error: Error): void;

  /** Runs once, after the reply or the failure was taken. */
  protected answered(): void {}

  #settle(): boolean {
    if (this.#answered) return false;
    this.#answered = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    return true;
  }
}

/** A command of a {@link Round}: held by it until answered; subclasses decode the reply into its results. */
export abstract class CommandSink extends WireCommand {
  readonly round: Round;

  constructor(name: string, round: Round) {
    super(name);
    this.round = round;
    round.hold();
  }

  protected override answered(): void {
    this.round.release();
  }
}

/** One command alone, answered through a promise (commands off the hot path: SCAN, CLIENT …). */
export class CallCommand extends WireCommand {
  readonly promise: Promise<RespValue>;
  #resolve!: (value: RespValue) => void;
  #reject!: (error: Error) => void;

  constructor(name: string) {
    super(name);
    this.promise = new Promise<RespValue>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  protected onReply(value: RespValue): void {
    this.#resolve(value);
  }

  protected onError(error: Error): void {
    this.#reject(error);
  }
}

/** A reply of a type its command never gets: the server is not speaking for this command. */
export class UnexpectedReplyError extends Error {
  override name = 'UnexpectedReplyError';

  constructor(command: string) {
    super(`an unexpected reply to ${command.toUpperCase()}`);
  }
}

/** GET: the bytes (or a hole) of one op. */
export class ValueSink extends CommandSink {
  readonly #at: number;

  constructor(round: Round, at: number) {
    super('get', round);
    this.#at = at;
  }

  protected onReply(value: RespValue): void {
    if (value === null) this.round.results[this.#at] = undefined;
    else if (Buffer.isBuffer(value)) this.round.results[this.#at] = value;
    else this.onError(new UnexpectedReplyError(this.name));
  }

  protected onError(error: Error): void {
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/** MGET for a run of reads: the values, spread over the ops in the order of their keys. */
export class ValuesSink extends CommandSink {
  readonly #ops: readonly StoreOp[];
  readonly #from: number;
  readonly #to: number;
  /** How many keys the MGET named. */
  readonly #count: number;

  constructor(round: Round, ops: readonly StoreOp[], from: number, to: number, count: number) {
    super('mget', round);
    this.#ops = ops;
    this.#from = from;
    this.#to = to;
    this.#count = count;
  }

  protected onReply(value: RespValue): void {
    if (!Array.isArray(value) || value.length !== this.#count || !value.every(isBulkOrNil)) {
      this.onError(new UnexpectedReplyError(this.name));
      return;
    }
    const values = value as Array<Buffer | null>;
    const results = this.round.results;
    let at = 0;
    for (let i = this.#from; i < this.#to; i++) {
      const op = this.#ops[i]!;
      if (op.kind === 'get') {
        const one = values[at++];
        results[i] = one === null ? undefined : one;
      } else {
        const keys = (op as Extract<StoreOp, { kind: 'getMany' }>).keys.length;
        const list = new Array<Uint8Array | undefined>(keys);
        for (let j = 0; j < keys; j++) {
          const one = values[at++];
          list[j] = one === null ? undefined : one;
        }
        results[i] = list;
      }
    }
  }

  protected onError(error: Error): void {
    this.round.fail(this.#from, this.#to, error);
  }
}

/** A write (SET, MSET): nothing to decode; a failure fails the ops whose entries it carried, ops `from` to `to`. */
export class WriteSink extends CommandSink {
  readonly #from: number;
  readonly #to: number;

  constructor(name: string, round: Round, from: number, to: number) {
    super(name, round);
    this.#from = from;
    this.#to = to;
  }

  protected onReply(): void {}

  protected onError(error: Error): void {
    this.round.fail(this.#from, this.#to, error);
  }
}

/** A write whose entries belong to ops that are not contiguous (a cluster slot's share of a run). */
export class WriteListSink extends CommandSink {
  readonly #ops: readonly number[];

  constructor(name: string, round: Round, ops: readonly number[]) {
    super(name, round);
    this.#ops = ops;
  }

  protected onReply(): void {}

  protected onError(error: Error): void {
    for (const op of this.#ops) this.round.fail(op, op + 1, error);
  }
}

/** DEL, INCRBY, an increment script: an integer added to the op's slot (which starts at 0), so that one op's DELs on several slots sum. */
export class CountSink extends CommandSink {
  readonly #at: number;

  constructor(name: string, round: Round, at: number) {
    super(name, round);
    this.#at = at;
  }

  protected onReply(value: RespValue): void {
    if (typeof value !== 'number') {
      this.onError(new UnexpectedReplyError(this.name));
      return;
    }
    const results = this.round.results;
    const sofar = results[this.#at];
    // An op already failed on another slot stays failed.
    if (typeof sofar === 'number') results[this.#at] = sofar + value;
  }

  protected onError(error: Error): void {
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/** A command whose reply the caller decodes itself (SET NX): `decode` runs on the reply, and its throw fails the op. */
export class DecodeSink extends CommandSink {
  readonly #at: number;
  readonly #decode: (value: RespValue) => unknown;

  constructor(name: string, round: Round, at: number, decode: (value: RespValue) => unknown) {
    super(name, round);
    this.#at = at;
    this.#decode = decode;
  }

  protected onReply(value: RespValue): void {
    try {
      this.round.results[this.#at] = this.#decode(value);
    } catch (error) {
      this.round.fail(this.#at, this.#at + 1, error instanceof Error ? error : new Error(String(error)));
    }
  }

  protected onError(error: Error): void {
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/** A bulk string or nil: what MGET answers for each key. */
export function isBulkOrNil(value: RespValue | undefined): value is Buffer | null {
  return value === null || Buffer.isBuffer(value);
}
