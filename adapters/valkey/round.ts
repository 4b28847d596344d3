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
 *
 * A sink that gets a reply its command can never have (replies.ts) does not take it. On the
 * store's own connection, the connection then drops and fails everything in flight, this command
 * included (resp/connection.ts). iovalkey hands replies out without looking at their type, so
 * there the command drops the socket iovalkey wrote it to (iovalkey reconnects), and every store
 * command answered on that socket afterwards fails as lost instead of taking a reply that may be
 * another's.
 */
import { StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';
import type { StoreOp } from '../../src/store/types.ts';
import { ConnectionLostError } from './resp/connection.ts';
import type { ReplySink } from './resp/reply-sinks.ts';
import { RespProtocolError, type RespValue } from './resp/parser.ts';
import { HEALTH_REPLIES } from '../shared/redis-protocol.ts';
import { CANNOT_ANSWER, isBulkOrNil, isInteger, isOk, type ReplyCheck } from './replies.ts';

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

/** What takes over a command that a cluster node redirected: an iovalkey `Cluster`. */
export interface Redirector {
  sendCommand(command: never): unknown;
}

/** A socket iovalkey writes commands to, as the command sees it (iovalkey hands it to {@link WireCommand.toWritable}). */
interface WrittenTo {
  destroy(error?: Error): unknown;
}

/** Sockets on which an iovalkey client handed a store command a reply it cannot have: whatever else they answer is not trusted. */
const outOfStep = new WeakSet<WrittenTo>();
/** Set once any socket is out of step, so that the usual reply pays one boolean test. */
let anyOutOfStep = false;

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
  via: Redirector | undefined;
  /** The socket an iovalkey client last wrote the command to; undefined on the store's own connection. */
  #socket: WrittenTo | undefined;
  #answered = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(name: string) {
    this.name = name;
  }

  /** For iovalkey: the bytes to write to `socket` (a resend after a reconnect writes them to the new one). */
  toWritable(socket?: WrittenTo): Buffer {
    this.#socket = socket;
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

  /** Takes the reply; false when it cannot answer the command (see the module comment). */
  resolve(value: RespValue): boolean {
    if (this.#answered) return true;
    const socket = this.#socket;
    if (anyOutOfStep && socket !== undefined && outOfStep.has(socket)) {
      this.reject(LOST_OUT_OF_STEP);
      return true;
    }
    if (!this.onReply(value)) {
      if (socket === undefined) return false;
      // iovalkey does not look at what resolve returns: the command drops the connection itself.
      const error = new RespProtocolError(`a reply to ${this.name.toUpperCase()} that cannot answer it`);
      outOfStep.add(socket);
      anyOutOfStep = true;
      socket.destroy(error);
      this.reject(new ConnectionLostError(`connection lost: ${error.message}`));
      return true;
    }
    this.#settle();
    this.answered();
    return true;
  }

  reject(error: Error): void {
    const socket = this.#socket;
    // An error reply read from a socket out of step may be another command's.
    if (anyOutOfStep && socket !== undefined && outOfStep.has(socket) && !(error instanceof ConnectionLostError)) error = LOST_OUT_OF_STEP;
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

  /** Decodes the reply into results; false, writing nothing, when it cannot answer the command. */
  protected abstract onReply(value: RespValue): boolean;

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

/** What a store command answered on a socket out of step fails with. */
const LOST_OUT_OF_STEP = new ConnectionLostError('connection lost: a reply before it on the same connection cannot answer its command');

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
  readonly #accepts: ReplyCheck;
  #resolve!: (value: RespValue) => void;
  #reject!: (error: Error) => void;

  constructor(name: string, accepts: ReplyCheck) {
    super(name);
    this.#accepts = accepts;
    this.promise = new Promise<RespValue>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  protected onReply(value: RespValue): boolean {
    if (!this.#accepts(value)) return false;
    this.#resolve(value);
    return true;
  }

  protected onError(error: Error): void {
    this.#reject(error);
  }
}

/** GET: the bytes (or a hole) of one op. */
export class ValueSink extends CommandSink {
  readonly #at: number;

  constructor(round: Round, at: number) {
    super('get', round);
    this.#at = at;
  }

  protected onReply(value: RespValue): boolean {
    if (value === null) this.round.results[this.#at] = undefined;
    else if (Buffer.isBuffer(value)) this.round.results[this.#at] = value;
    else return false;
    return true;
  }

  protected onError(error: Error): void {
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/**
 * MGET for a run of reads, or for a share of one (a run of more keys than one command takes, see
 * commands.ts): the values, spread over the ops in the order of their keys, from key `skip` of op
 * `from` on. A getMany spread over several MGETs gets its list from the first that answers, and
 * keeps a failure of any.
 */
export class ValuesSink extends CommandSink {
  readonly #ops: readonly StoreOp[];
  readonly #from: number;
  readonly #to: number;
  /** Keys of op `from` read by an earlier MGET. */
  readonly #skip: number;
  /** How many keys the MGET named. */
  readonly #count: number;

  constructor(round: Round, ops: readonly StoreOp[], from: number, to: number, count: number, skip = 0) {
    super('mget', round);
    this.#ops = ops;
    this.#from = from;
    this.#to = to;
    this.#count = count;
    this.#skip = skip;
  }

  protected onReply(value: RespValue): boolean {
    if (!Array.isArray(value) || value.length !== this.#count || !value.every(isBulkOrNil)) return false;
    const values = value as Array<Buffer | null>;
    const results = this.round.results;
    let at = 0;
    let skip = this.#skip;
    for (let i = this.#from; i < this.#to; i++) {
      const op = this.#ops[i]!;
      if (op.kind === 'get') {
        const one = values[at++];
        results[i] = one === null ? undefined : one;
        continue;
      }
      const keys = (op as Extract<StoreOp, { kind: 'getMany' }>).keys.length;
      const end = Math.min(keys, skip + this.#count - at);
      let list = results[i] as Array<Uint8Array | undefined> | Error | undefined;
      if (list === undefined) results[i] = list = new Array<Uint8Array | undefined>(keys);
      if (list instanceof Error) at += end - skip;
      else
        for (let j = skip; j < end; j++) {
          const one = values[at++];
          list[j] = one === null ? undefined : one;
        }
      skip = 0;
    }
    return true;
  }

  protected onError(error: Error): void {
    this.round.fail(this.#from, this.#to, error);
  }
}

/**
 * A write (SET, MSET; SET NX with `accepts` {@link isOkOrNil}): nothing to decode; a failure
 * fails the ops whose entries it carried, ops `from` to `to`.
 */
export class WriteSink extends CommandSink {
  readonly #from: number;
  readonly #to: number;
  readonly #accepts: ReplyCheck;

  constructor(name: string, round: Round, from: number, to: number, accepts: ReplyCheck = isOk) {
    super(name, round);
    this.#from = from;
    this.#to = to;
    this.#accepts = accepts;
  }

  protected onReply(value: RespValue): boolean {
    return this.#accepts(value);
  }

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

  protected onReply(value: RespValue): boolean {
    return isOk(value);
  }

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

  protected onReply(value: RespValue): boolean {
    if (!isInteger(value)) return false;
    const results = this.round.results;
    const sofar = results[this.#at];
    // An op already failed on another slot stays failed.
    if (typeof sofar === 'number') results[this.#at] = sofar + value;
    return true;
  }

  protected onError(error: Error): void {
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/**
 * A command whose reply the caller decodes itself (SET NX): `decode` runs on the reply, and its
 * throw fails the op; it returns {@link CANNOT_ANSWER} for a reply the command cannot have.
 */
export class DecodeSink extends CommandSink {
  readonly #at: number;
  readonly #decode: (value: RespValue) => unknown;

  constructor(name: string, round: Round, at: number, decode: (value: RespValue) => unknown) {
    super(name, round);
    this.#at = at;
    this.#decode = decode;
  }

  protected onReply(value: RespValue): boolean {
    return decodeInto(this.round, this.#at, this.#decode, value);
  }

  protected onError(error: Error): void {
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/** Puts `decode(value)` into slot `at` of `round` (its throw fails the op); false when it says {@link CANNOT_ANSWER}. */
export function decodeInto(round: Round, at: number, decode: (value: RespValue) => unknown, value: RespValue): boolean {
  let decoded: unknown;
  try {
    decoded = decode(value);
  } catch (error) {
    round.fail(at, at + 1, error instanceof Error ? error : new Error(String(error)));
    return true;
  }
  if (decoded === CANNOT_ANSWER) return false;
  round.results[at] = decoded;
  return true;
}
