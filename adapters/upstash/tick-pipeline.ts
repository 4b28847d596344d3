/**
 * The upstash store's one request per tick: every command the store issues in one turn of the
 * event loop — a folded tick of the engine's calls, a tagged read beside it, a lease — leaves in
 * one `/pipeline` request, executed by the server in the order it was issued, and each caller
 * gets its own slice of the replies. A call's own commands always travel together.
 *
 * Scripts go as EVALSHA once the server is known to hold them (this process ran them with EVAL
 * first), so the script's source crosses the network once per process, not once per call; a
 * server that forgot them (restart, SCRIPT FLUSH) answers NOSCRIPT, and that call is sent again
 * as EVAL.
 */
import { StoreClosedError, StoreRefusedError } from '../../src/store/errors.ts';
import { STORE_HOPS, TickFlush } from '../../src/store/tick-flush.ts';
import { HEALTH_REPLIES } from '../shared/redis-protocol.ts';
import type { RestCommand, Sender, SentCommand } from './commands.ts';
import type { WireReply } from './rest-client.ts';

/** What the server answered to one command: a result, or the error it replied with. */
export type RestReply = { ok: true; result: unknown } | { ok: false; error: Error };

/** A call: its commands, and how its caller reads their replies. */
interface Call {
  commands: readonly RestCommand[];
  read(replies: readonly RestReply[]): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How a script is sent: its SHA-1 once computed, and whether the server is known to hold it. */
interface ScriptState {
  sha?: string;
  loaded: boolean;
}

/** The commands of a tick, sent as one request. */
export class TickPipeline {
  #queue: Call[] = [];
  /** Sends the queue once the engine's folds of the tick are in (src/store/tick-flush.ts). */
  readonly #tick = new TickFlush(
    () => this.#queue.length,
    () => this.#flush(),
    STORE_HOPS,
  );
  readonly #scripts = new Map<string, ScriptState>();
  /** Once {@link close} was called: the store's name, for the error every later call gets. */
  #closedStore: string | undefined;

  /**
   * @param sender sends a request's commands (commands.ts).
   * @param merge true: every call of a tick in one request; false: one request per call.
   */
  constructor(
    private readonly sender: Sender,
    private readonly merge: boolean,
  ) {}

  /**
   * Sends `commands` with the others of this tick; resolves with what `read` makes of their
   * replies. The request failing rejects every call it carried.
   */
  send<T>(commands: readonly RestCommand[], read: (replies: readonly RestReply[]) => T): Promise<T> {
    if (this.#closedStore !== undefined) return Promise.reject(new StoreClosedError(this.#closedStore));
    if (commands.length === 0) {
      try {
        return Promise.resolve(read([]));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      const call: Call = { commands, read, resolve: resolve as (value: unknown) => void, reject };
      if (!this.merge) return void this.#exec([call]);
      if (this.#queue.length === 0) this.#tick.schedule();
      this.#queue.push(call);
    });
  }

  /** Refuses every later call with a {@link StoreClosedError} naming `store`; calls already queued still leave. */
  close(store: string): void {
    this.#closedStore = store;
  }

  /** One command whose error reply rejects the call; resolves with its result. */
  one(command: RestCommand): Promise<unknown> {
    return this.send([command], ([reply]) => resultOf(reply!));
  }

  #flush(): void {
    const calls = this.#queue;
    this.#queue = [];
    void this.#exec(calls);
  }

  async #exec(calls: readonly Call[]): Promise<void> {
    const sent: SentCommand[] = [];
    for (const call of calls) for (const command of call.commands) sent.push(this.#prepare(command));
    let replies: WireReply[];
    try {
      replies = await this.sender(sent);
      if (replies.length !== sent.length) throw new Error(`upstash: the server answered ${replies.length} replies for ${sent.length} commands`);
    } catch (error) {
      for (const call of calls) call.reject(error);
      return;
    }
    let at = 0;
    for (const call of calls) {
      const own = replies.slice(at, at + call.commands.length);
      const mine = sent.slice(at, at + call.commands.length);
      at += call.commands.length;
      this.#noteScripts(call.commands, mine, own);
      // A script the server forgot: this call goes again, its scripts as EVAL.
      if (own.some((r, i) => mine[i]!.name === 'evalsha' && r.error?.startsWith('NOSCRIPT'))) {
        void this.#exec([call]);
        continue;
      }
      try {
        call.resolve(call.read(own.map(toReply)));
      } catch (error) {
        call.reject(error);
      }
    }
  }

  /** A script goes as EVALSHA once the server is known to hold it, as EVAL until then. */
  #prepare(command: RestCommand): SentCommand {
    if (command.name !== 'script') return command;
    const state = this.#script(command.lua);
    if (state.loaded && state.sha) return { name: 'evalsha', sha: state.sha, keys: command.keys, args: command.args };
    return { name: 'eval', lua: command.lua, keys: command.keys, args: command.args };
  }

  #script(lua: string): ScriptState {
    let state = this.#scripts.get(lua);
    if (!state) {
      state = { loaded: false };
      this.#scripts.set(lua, state);
      const known = state;
      void sha1Hex(lua).then((sha) => {
        known.sha = sha;
      });
    }
    return state;
  }

  /** An EVAL that ran means the server holds the script; NOSCRIPT means it no longer does. */
  #noteScripts(commands: readonly RestCommand[], sent: readonly SentCommand[], replies: readonly WireReply[]): void {
    commands.forEach((command, i) => {
      if (command.name !== 'script') return;
      const state = this.#script(command.lua);
      if (sent[i]!.name === 'evalsha') {
        if (replies[i]!.error?.startsWith('NOSCRIPT')) state.loaded = false;
      } else if (replies[i]!.error === undefined) state.loaded = true;
    });
  }
}

/**
 * A reply as the store reads it. An error about the server's state (out of memory, loading, read
 * only…) is a plain Error, which counts against the store's health; any other error reply is
 * about the command itself, a {@link StoreRefusedError} that does not.
 */
function toReply(reply: WireReply): RestReply {
  if (reply.error === undefined) return { ok: true, result: reply.result };
  const message = `upstash: ${reply.error}`;
  return { ok: false, error: HEALTH_REPLIES.test(reply.error) ? new Error(message) : new StoreRefusedError(message) };
}

/** The result of a reply, or its error thrown. */
export function resultOf(reply: RestReply): unknown {
  if (!reply.ok) throw reply.error;
  return reply.result;
}

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-1 of a script's source, as EVALSHA names it (Web Crypto, on every runtime). */
async function sha1Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)));
}
