/**
 * The commands the upstash store sends, and the two ways they reach the server: written out as
 * the REST protocol's JSON (rest-client.ts), when the store opened the endpoint itself, or
 * through the pipeline of an @upstash/redis client passed in.
 */
import type { Redis } from '@upstash/redis/cloudflare';
import type { RestClient, WireCommand, WireReply } from './rest-client.ts';

/** One command, as the store issues it (a script is sent as EVALSHA or EVAL: tick-pipeline.ts decides). */
export type RestCommand =
  | { readonly name: 'get'; readonly key: string }
  | { readonly name: 'mget'; readonly keys: readonly string[] }
  | { readonly name: 'set'; readonly key: string; readonly value: string; readonly px?: number; readonly nx?: boolean }
  | { readonly name: 'mset'; readonly entries: ReadonlyArray<readonly [string, string]> }
  | { readonly name: 'del'; readonly keys: readonly string[] }
  | { readonly name: 'incrby'; readonly key: string; readonly by: number }
  | { readonly name: 'script'; readonly lua: string; readonly keys: readonly string[]; readonly args: readonly string[] }
  | { readonly name: 'scan'; readonly cursor: string; readonly match: string; readonly count: number };

/** A command as it goes out: a script as its source or as its SHA-1. */
export type SentCommand =
  | Exclude<RestCommand, { name: 'script' }>
  | { readonly name: 'eval'; readonly lua: string; readonly keys: readonly string[]; readonly args: readonly string[] }
  | { readonly name: 'evalsha'; readonly sha: string; readonly keys: readonly string[]; readonly args: readonly string[] };

/** Sends a request's commands; resolves with one reply per command, or rejects when the request failed. */
export type Sender = (commands: readonly SentCommand[]) => Promise<WireReply[]>;

/** The command as the REST protocol's JSON carries it. */
function toWire(command: SentCommand): WireCommand {
  switch (command.name) {
    case 'get':
      return ['get', command.key];
    case 'mget':
      return ['mget', ...command.keys];
    case 'set': {
      const wire: Array<string | number> = ['set', command.key, command.value];
      if (command.nx) wire.push('nx');
      if (command.px !== undefined) wire.push('px', command.px);
      return wire;
    }
    case 'mset':
      return ['mset', ...command.entries.flat()];
    case 'del':
      return ['del', ...command.keys];
    case 'incrby':
      return ['incrby', command.key, command.by];
    case 'scan':
      return ['scan', command.cursor, 'match', command.match, 'count', command.count];
    case 'eval':
      return ['eval', command.lua, command.keys.length, ...command.keys, ...command.args];
    case 'evalsha':
      return ['evalsha', command.sha, command.keys.length, ...command.keys, ...command.args];
  }
}

/** Sends through the store's own REST client. */
export function restSender(client: RestClient): Sender {
  return (commands) => client.pipeline(commands.map(toWire));
}

type SdkPipeline = ReturnType<Redis['pipeline']>;

function addToSdk(pipeline: SdkPipeline, command: SentCommand): void {
  switch (command.name) {
    case 'get':
      pipeline.get(command.key);
      return;
    case 'mget':
      pipeline.mget([...command.keys]);
      return;
    case 'set':
      if (command.px === undefined) pipeline.set(command.key, command.value, command.nx ? { nx: true } : undefined);
      else pipeline.set(command.key, command.value, command.nx ? { px: command.px, nx: true } : { px: command.px });
      return;
    case 'mset':
      pipeline.mset(Object.fromEntries(command.entries));
      return;
    case 'del':
      pipeline.del(...command.keys);
      return;
    case 'incrby':
      pipeline.incrby(command.key, command.by);
      return;
    case 'scan':
      pipeline.scan(command.cursor, { match: command.match, count: command.count });
      return;
    case 'eval':
      pipeline.eval(command.lua, [...command.keys], [...command.args]);
      return;
    case 'evalsha':
      pipeline.evalsha(command.sha, [...command.keys], [...command.args]);
      return;
  }
}

/** Sends through the pipeline of an @upstash/redis client (one passed in: its options, retries and encoding apply). */
export function sdkSender(client: Redis): Sender {
  return async (commands) => {
    const pipeline = client.pipeline();
    for (const command of commands) addToSdk(pipeline, command);
    return (await pipeline.exec({ keepErrors: true })) as WireReply[];
  };
}
