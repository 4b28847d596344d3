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
function toWire(c: SentCommand): WireCommand {
  switch (c.name) {
    case 'get':
      return ['get', c.key];
    case 'mget':
      return ['mget', ...c.keys];
    case 'set': {
      const command: Array<string | number> = ['set', c.key, c.value];
      if (c.nx) command.push('nx');
      if (c.px !== undefined) command.push('px', c.px);
      return command;
    }
    case 'mset':
      return ['mset', ...c.entries.flat()];
    case 'del':
      return ['del', ...c.keys];
    case 'incrby':
      return ['incrby', c.key, c.by];
    case 'scan':
      return ['scan', c.cursor, 'match', c.match, 'count', c.count];
    case 'eval':
      return ['eval', c.lua, c.keys.length, ...c.keys, ...c.args];
    case 'evalsha':
      return ['evalsha', c.sha, c.keys.length, ...c.keys, ...c.args];
  }
}

/** Sends through the store's own REST client. */
export function restSender(client: RestClient): Sender {
  return (commands) => client.pipeline(commands.map(toWire));
}

type SdkPipeline = ReturnType<Redis['pipeline']>;

function addToSdk(p: SdkPipeline, c: SentCommand): void {
  switch (c.name) {
    case 'get':
      p.get(c.key);
      return;
    case 'mget':
      p.mget([...c.keys]);
      return;
    case 'set':
      if (c.px === undefined) p.set(c.key, c.value, c.nx ? { nx: true } : undefined);
      else p.set(c.key, c.value, c.nx ? { px: c.px, nx: true } : { px: c.px });
      return;
    case 'mset':
      p.mset(Object.fromEntries(c.entries));
      return;
    case 'del':
      p.del(...c.keys);
      return;
    case 'incrby':
      p.incrby(c.key, c.by);
      return;
    case 'scan':
      p.scan(c.cursor, { match: c.match, count: c.count });
      return;
    case 'eval':
      p.eval(c.lua, [...c.keys], [...c.args]);
      return;
    case 'evalsha':
      p.evalsha(c.sha, [...c.keys], [...c.args]);
      return;
  }
}

/** Sends through the pipeline of an @upstash/redis client (one passed in: its options, retries and encoding apply). */
export function sdkSender(client: Redis): Sender {
  return async (commands) => {
    const p = client.pipeline();
    for (const c of commands) addToSdk(p, c);
    return (await p.exec({ keepErrors: true })) as WireReply[];
  };
}
