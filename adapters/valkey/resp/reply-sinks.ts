/**
 * Where a connection's replies go: the sink each command leaves for its reply, and the FIFO the
 * connection keeps them in, in the order the commands were written (replies come back in it).
 */
import type { RespValue } from './parser.ts';

/** Where a command's reply goes: exactly one of the two is called, once (a refused reply is not taken). */
export interface ReplySink {
  /**
   * Takes the reply; returns false, taking nothing, when it is of a type the command can never
   * be answered with: the connection is then out of step with its callers, and drops.
   */
  resolve(value: RespValue): boolean;
  reject(error: Error): void;
  /** The command's name, for the message of a refused reply. */
  readonly name?: string;
}

/** A FIFO of sinks that costs nothing while it keeps emptying (the usual case: every reply came back). */
export class SinkQueue {
  #items: Array<ReplySink | undefined> = [];
  #head = 0;

  /** Sinks waiting. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Adds `sink` at the back: its command was written last. */
  push(sink: ReplySink): void {
    this.#items.push(sink);
  }

  /** Puts `sink` back in front (it was just shifted out). */
  unshift(sink: ReplySink): void {
    if (this.#head > 0) this.#items[--this.#head] = sink;
    else this.#items.unshift(sink);
  }

  /** Takes the sink of the oldest command out; undefined when none waits. */
  shift(): ReplySink | undefined {
    const items = this.#items;
    if (this.#head === items.length) return undefined;
    const sink = items[this.#head];
    items[this.#head++] = undefined;
    if (this.#head === items.length) {
      items.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > items.length) {
      items.splice(0, this.#head);
      this.#head = 0;
    }
    return sink;
  }

  /** Takes every sink out, in order. */
  drain(): ReplySink[] {
    const rest = this.#items.slice(this.#head) as ReplySink[];
    this.#items = [];
    this.#head = 0;
    return rest;
  }
}
