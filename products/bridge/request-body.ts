/**
 * Parsing and validating the JSON bodies of the Upstash REST protocol: one command is a
 * non-empty array of strings and numbers; `/pipeline` and `/multi-exec` take a non-empty
 * array of such commands. Anything else is refused before a byte reaches Redis.
 *
 * The protocol never nests deeper than that, so the body's shape is checked before it is
 * parsed (json-shape.ts): a deeply nested or oversized batch is refused without building it.
 */
import { BridgeError } from './bridge-error.ts';
import { checkShape } from './json-shape.ts';

/** One Redis command: its name and its arguments, all as strings. */
export interface BridgeCommand {
  /** Lower-case command name, for the checks: the {@link wireName} with A–Z lowered, nothing else. */
  name: string;
  /**
   * Upper-case command name, the one sent. iovalkey looks its reply transformers up by the
   * lower-case name (HGETALL would become an object, losing binary field names): the
   * upper-case name gets the raw reply, as Upstash returns it.
   */
  wireName: string;
  args: string[];
}

// Redis matches command names byte for byte, ignoring ASCII case only. JavaScript's case
// mappings are wider: "ſ" upper-cases to "S" and "ı" to "I", so "ſelect" was checked as itself
// (unlisted, allowed under --allow-admin) and sent as SELECT. Names are therefore visible
// ASCII, on which lowering and raising change A–Z and a–z only: the name checked and the name
// sent are one name.
const COMMAND_NAME = /^[\x21-\x7e]+$/;

/** Parses the body of `POST /`. */
export function parseCommandBody(text: string): BridgeCommand {
  checkShape(text, { maxDepth: 1 });
  return toCommand(parseJson(text), 'the body');
}

/** Parses the body of `POST /pipeline` or `POST /multi-exec`, refusing more than `maxCommands` commands. */
export function parseBatchBody(text: string, maxCommands: number): unknown[] {
  checkShape(text, { maxDepth: 2, maxCommands });
  const body = parseJson(text);
  if (!Array.isArray(body) || body.length === 0) throw new BridgeError(400, 'the body must be a non-empty JSON array of commands, e.g. [["SET","k","v"],["GET","k"]]');
  return body;
}

/**
 * Validates one command of a batch. The shape of every command is checked before any runs,
 * so a malformed batch fails as a whole; a refused command fails only its own slot.
 */
export function toCommand(value: unknown, where: string): BridgeCommand {
  if (!Array.isArray(value) || value.length === 0) throw new BridgeError(400, `${where} must be a non-empty JSON array such as ["GET","key"]`);
  const [head, ...rest] = value as unknown[];
  if (typeof head !== 'string' || head === '') throw new BridgeError(400, `${where}: the command name must be a non-empty string`);
  if (!COMMAND_NAME.test(head)) throw new BridgeError(400, `${where}: the command name ${JSON.stringify(head.slice(0, 40))} is not visible ASCII, as every Redis command name is`);
  const args = rest.map((arg, i) => {
    if (typeof arg === 'string') return arg;
    if (typeof arg === 'number') return String(arg);
    throw new BridgeError(400, `${where}: argument ${i + 1} must be a string or a number, got ${arg === null ? 'null' : typeof arg}`);
  });
  const wireName = head.toUpperCase();
  return { name: wireName.toLowerCase(), wireName, args };
}

/**
 * An argument lowered the way Redis compares keywords (A–Z only), for matching subcommands and
 * options such as LOAD, BLOCK or COUNT: "K" (the Kelvin sign) stays what Redis sees, not "k".
 */
export function keyword(arg: string | undefined): string | undefined {
  return arg?.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

function parseJson(text: string): unknown {
  if (text.trim() === '') throw new BridgeError(400, 'the body is empty: send a JSON array such as ["GET","key"]');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BridgeError(400, `the body is not valid JSON (${(error as Error).message})`);
  }
}
