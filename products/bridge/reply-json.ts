/**
 * Turning RESP replies (as iovalkey returns them with Buffer replies) into the JSON of the
 * Upstash REST protocol. With `Upstash-Encoding: base64` every string is base64 of its raw
 * bytes — lossless — except the status "OK", which Upstash leaves as it is and the SDK
 * expects as it is. Without it, strings are decoded as UTF-8, as Upstash does.
 */

/** A JSON value of a reply. */
export type ReplyJson = string | number | null | ReplyJson[];

/** Converts one reply, recursively through arrays. */
export function replyToJson(reply: unknown, base64: boolean): ReplyJson {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'number') return reply;
  if (Buffer.isBuffer(reply)) {
    if (!base64) return reply.toString('utf8');
    return isOk(reply) ? 'OK' : reply.toString('base64');
  }
  if (typeof reply === 'string') return base64 && reply !== 'OK' ? Buffer.from(reply).toString('base64') : reply;
  if (Array.isArray(reply)) return reply.map((item) => replyToJson(item, base64));
  // An error nested in an array reply (a Lua table carrying an error, say): its message.
  if (reply instanceof Error) return reply.message;
  return String(reply);
}

function isOk(reply: Buffer): boolean {
  return reply.length === 2 && reply[0] === 0x4f && reply[1] === 0x4b;
}
