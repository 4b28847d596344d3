/**
 * A check of a JSON body's shape before it is parsed. JSON.parse builds whatever it is given:
 * 16 MiB of nested brackets cost about 500 MB and 6 s of one core, and two million tiny
 * commands about 190 MB. The Upstash protocol never nests deeper than a batch of commands, so
 * one pass over the text, skipping strings, bounds the nesting and counts the commands, and a
 * body over either bound is refused before anything is allocated for it.
 */
import { BridgeError } from './bridge-error.ts';

/** Bounds of {@link checkShape}. */
export interface ShapeLimits {
  /**
   * Nesting the protocol uses: 1 for one command, 2 for a batch. One level more is let through
   * to the parser, so that a stray object or array in an argument gets its precise error.
   */
  maxDepth: 1 | 2;
  /** Most commands in a batch (the arrays opened at depth 2). */
  maxCommands?: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** Throws a 400 {@link BridgeError} when `text` nests deeper or holds more commands than `limits` allow. */
export function checkShape(text: string, limits: ShapeLimits): void {
  const deepest = limits.maxDepth + 1;
  const maxCommands = limits.maxCommands ?? Infinity;
  let depth = 0;
  let commands = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth > deepest)
        throw new BridgeError(400, `the body nests deeper than the protocol allows (${limits.maxDepth === 1 ? 'a command is one array of strings and numbers' : 'a batch is an array of commands'})`);
      if (depth === 2 && limits.maxDepth === 2 && ++commands > maxCommands) {
        throw new BridgeError(400, `the batch holds more than ${maxCommands} commands (maxCommands / --max-commands)`);
      }
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
}
