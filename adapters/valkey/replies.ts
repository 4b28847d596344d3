/**
 * What each command the Valkey stores send can be answered with, an error reply aside. A reply of
 * any other type means the connection is out of step with its callers (one stray reply, and every
 * later one would answer the command after its own), so the connection drops and everything in
 * flight fails (round.ts, resp/connection.ts). The hot path's sinks check their replies as they
 * decode them (round.ts); the commands off it are checked here, by name.
 *
 * On the store's own connection a simple string arrives as a string; through an iovalkey client,
 * which parses with `returnBuffers`, as a Buffer: both are accepted.
 */
import type { RespValue } from './resp/parser.ts';

/** True when `value` can answer the command. */
export type ReplyCheck = (value: RespValue) => boolean;

/** Returned by a reply decoder (scripts, SET NX) when the reply cannot answer its command. */
export const CANNOT_ANSWER: unique symbol = Symbol('cannot answer');

/** A simple string reply, as either connection delivers it. */
function isSimple(value: RespValue, text: string): boolean {
  return value === text || (Buffer.isBuffer(value) && value.length === text.length && value.toString('latin1') === text);
}

/** A bulk string or nil: what GET answers, and MGET for each key. */
export function isBulkOrNil(value: RespValue | undefined): value is Buffer | null {
  return value === null || Buffer.isBuffer(value);
}

/** OK: SET, MSET, AUTH, SELECT, CLIENT SETNAME, CLIENT TRACKING. */
export function isOk(value: RespValue): boolean {
  return isSimple(value, 'OK');
}

/** OK or nil: SET NX (nil when the key existed). */
export function isOkOrNil(value: RespValue): boolean {
  return value === null || isSimple(value, 'OK');
}

/** An integer: DEL, UNLINK, INCRBY, CLIENT ID, PUBLISH, and every script of the stores but the tagged read. */
export function isInteger(value: RespValue): value is number {
  return typeof value === 'number';
}

/** An integer reply as a script's result (every script of the stores but the tagged read answers one). */
export function integerReply(value: RespValue): number | typeof CANNOT_ANSWER {
  return isInteger(value) ? value : CANNOT_ANSWER;
}

/** SET NX's reply as "this call created the key". */
export function createdReply(value: RespValue): boolean | typeof CANNOT_ANSWER {
  return value === null ? false : isOk(value) ? true : CANNOT_ANSWER;
}

/** A list of bulk strings (SCAN's keys). */
function isBulkList(value: RespValue | undefined): boolean {
  return Array.isArray(value) && value.every((item) => Buffer.isBuffer(item));
}

/** SCAN: the next cursor and a page of keys. */
function isScanPage(value: RespValue): boolean {
  return Array.isArray(value) && value.length === 2 && Buffer.isBuffer(value[0]) && isBulkList(value[1]);
}

/** PING: PONG, or on a subscribed connection `pong` and an empty message. */
function isPong(value: RespValue): boolean {
  return isSimple(value, 'PONG') || (Array.isArray(value) && value.length === 2 && isSimple(value[0] ?? null, 'pong') && Buffer.isBuffer(value[1]));
}

/** SUBSCRIBE (one channel): `subscribe`, the channel, and how many channels the connection is subscribed to. */
function isSubscribed(value: RespValue): boolean {
  return Array.isArray(value) && value.length === 3 && isSimple(value[0] ?? null, 'subscribe') && Buffer.isBuffer(value[1]) && typeof value[2] === 'number';
}

/** UNSUBSCRIBE (one channel): `unsubscribe`, the channel, and how many channels the connection is still subscribed to. */
function isUnsubscribed(value: RespValue): boolean {
  return Array.isArray(value) && value.length === 3 && isSimple(value[0] ?? null, 'unsubscribe') && Buffer.isBuffer(value[1]) && typeof value[2] === 'number';
}

/** The commands off the hot path, by name (and subcommand): what answers them. */
const OFF_PATH: Readonly<Record<string, ReplyCheck>> = {
  SCAN: isScanPage,
  UNLINK: isInteger,
  PING: isPong,
  SUBSCRIBE: isSubscribed,
  UNSUBSCRIBE: isUnsubscribed,
  PUBLISH: isInteger,
  'CLIENT ID': isInteger,
  'CLIENT TRACKING': isOk,
};

/** What can answer the command `args` (one of the stores' commands off the hot path). */
export function replyCheckOf(args: ReadonlyArray<string | number | Uint8Array>): ReplyCheck {
  const name = String(args[0]).toUpperCase();
  const check = OFF_PATH[name] ?? OFF_PATH[`${name} ${String(args[1]).toUpperCase()}`];
  // A command added to the stores without saying what answers it is a bug here, not the server's.
  if (check === undefined) throw new Error(`replies.ts: no reply type is known for ${name}`);
  return check;
}
