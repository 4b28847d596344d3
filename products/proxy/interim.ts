/**
 * Relaying interim (1xx) responses from the origin to the client (RFC 9110 §15.2): a proxy
 * must forward those it did not ask for, 103 Early Hints first among them. They go to the one
 * client whose request reached the origin; they are never stored, so a later hit carries none
 * of their fields.
 *
 * Node's public API writes 100 (writeContinue), 102 (writeProcessing) and 103 with a Link
 * field (writeEarlyHints); those are relayed. Other 1xx codes have no public way out and are
 * dropped, as is anything sent to an HTTP/1.0 client, which must never get a 1xx.
 */
import { validateHeaderName, validateHeaderValue, type IncomingMessage, type ServerResponse } from 'node:http';
import { isHopByHop } from '../../src/http/rules/headers.ts';
import type { InterimResponse } from './origin-client.ts';

/** At most this many interim responses per request are relayed: each one is written without back-pressure. */
export const MAX_INTERIM_RESPONSES = 16;

/** A callback that writes the origin's interim responses to `outgoing` while they may still be sent. */
export function interimRelay(incoming: IncomingMessage, outgoing: ServerResponse): ((interim: InterimResponse) => void) | undefined {
  if (incoming.httpVersionMajor < 1 || (incoming.httpVersionMajor === 1 && incoming.httpVersionMinor === 0)) return undefined;
  let relayed = 0;
  return (interim) => {
    if (outgoing.headersSent || outgoing.writableEnded || relayed >= MAX_INTERIM_RESPONSES) return;
    relayed++;
    if (interim.status === 100) outgoing.writeContinue();
    else if (interim.status === 102) outgoing.writeProcessing();
    else if (interim.status === 103) writeEarlyHints(outgoing, interim.rawHeaders);
  };
}

function writeEarlyHints(outgoing: ServerResponse, raw: readonly string[]): void {
  const hints: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (isHopByHop(name, undefined) || !valid(name, value)) continue;
    // Node takes one link per element: a field listing several is split where the next <uri> starts.
    const values = name === 'link' ? value.split(/,\s*(?=<)/) : [value];
    const previous = hints[name];
    hints[name] = previous === undefined && values.length === 1 ? values[0]! : [...(previous === undefined ? [] : Array.isArray(previous) ? previous : [previous]), ...values];
  }
  try {
    // Node writes nothing without a Link field, and throws on one it cannot parse: dropped then.
    outgoing.writeEarlyHints(hints);
  } catch {
    // A malformed hint is not worth failing the response it precedes.
  }
}

function valid(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}
