/** What the subcommands of the `cachette` command share: their shape, flag parsing and start-up errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Duration } from '../../src/util/duration.ts';
import { tokenProblem } from './bearer-token.ts';

/** Where a command writes, and the environment it reads (tests pass their own). */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

/** A server a command started; the command line stops it on SIGINT or SIGTERM. */
export interface Started {
  stop(): Promise<void>;
}

/** One subcommand of `cachette`. */
export interface Command {
  name: string;
  /** One line for `cachette --help`. */
  summary: string;
  /** The text of `cachette <name> --help`. */
  help: string;
  /** Starts the command (`--help` never reaches it): an exit code when it ends at once, or what it started. */
  run(args: readonly string[], io: CliIo): Promise<number | Started>;
}

/** A mistake in the command line: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The flags a command takes: each a string or a boolean. */
export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** The values of parsed flags: a string or a boolean each, absent when not given. */
export type FlagValues<F extends FlagSpec> = { [K in keyof F]?: F[K]['type'] extends 'boolean' ? boolean : string };

/** Parses `args` against `flags`, turning node:util's errors into {@link UsageError}s. */
export function parseFlags<F extends FlagSpec>(args: readonly string[], flags: F): FlagValues<F> {
  try {
    return parseArgs({ args: [...args], options: flags as ParseArgsConfig['options'], strict: true, allowPositionals: false }).values as FlagValues<F>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A TCP port from a flag or variable. */
export function portFrom(text: string, where: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`${where} must be a port number from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

/** A positive integer from a flag. */
export function positiveIntegerFrom(text: string, where: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || !Number.isSafeInteger(value)) throw new UsageError(`${where} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

/** A bearer token from a flag or variable: refused, naming `where`, unless it meets the rule of bearer-token.ts. */
export function tokenFrom(text: string, where: string): string {
  const problem = tokenProblem(text);
  if (problem !== undefined) throw new UsageError(`${where} ${problem}`);
  return text;
}

/** A duration such as "30s" or "250ms" from a flag (the receiving API checks its range). */
export function durationFrom(text: string, where: string): Duration {
  if (!/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(text)) throw new UsageError(`${where} must be a duration such as 30s, 500ms or 5m, got ${JSON.stringify(text)}`);
  return text as Duration;
}

/** Where a command listens, for the hint when it cannot. */
export interface ListenSpec {
  port: number;
  host: string;
  /** How a user picks another port, e.g. "--port or the PORT variable". */
  portChoice: string;
}

/**
 * One line that says what to do when a server cannot start: another port when the port is
 * taken, another address when the host is not local; otherwise the error's own message.
 */
export function startupProblem(error: unknown, listen: ListenSpec): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `port ${listen.port} on ${listen.host} is already in use: choose another with ${listen.portChoice}`;
  if (code === 'EACCES') return `no permission to listen on port ${listen.port}: choose one above 1023 with ${listen.portChoice}`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `${listen.host} is not an address of this machine: choose one with --host`;
  return error instanceof Error ? error.message : String(error);
}
