/**
 * `cachette bridge` (and `npm run bridge --`): a local Upstash-compatible REST endpoint in
 * front of a real Redis, so code written for `@upstash/redis` (edge functions, Workers) runs
 * and is tested without a cloud account. Without a token a random one is made and printed.
 * Web pages cannot reach it (browser-guard.ts), and a token must be 16+ characters.
 */
import { parseFlags, portFrom, positiveIntegerFrom, startupProblem, tokenFrom, UsageError, type Command } from '../shared/command.ts';
import type { BridgeOptions } from './bridge.ts';
import { MissingPeerError } from '../../src/util/optional-peer.ts';
import { redactUrl } from '../../src/util/redact-url.ts';

const DEFAULT_PORT = 8079;

const HELP = `Usage: cachette bridge [options]

A local endpoint that speaks the Upstash REST protocol (POST /, /pipeline, /multi-exec) in
front of a real Redis or Valkey, for development and tests. Only data commands and the
stores' own scripts run unless you allow more.

Options:
  --port <n>              port to listen on (default: $UPSTASH_BRIDGE_PORT, else ${DEFAULT_PORT}; 0 picks a free one)
  --host <address>        address to listen on (default 127.0.0.1)
  --allowed-hosts <names> comma-separated Host names to answer besides IP addresses, localhost
                          and --host (".example.test" allows the names under it too)
  --redis <url>           the Redis server (default $REDIS_URL, else redis://127.0.0.1:6379)
  --token <secret>        the bearer token clients send, 16+ characters (default
                          $UPSTASH_BRIDGE_TOKEN, else a random one, printed)
  --max-body-bytes <n>    largest request body (default 16777216)
  --max-commands <n>      most commands in one pipeline or transaction (default 10000)
  --allow-admin           also run admin commands (FLUSHALL, CONFIG, KEYS, LCS, SHUTDOWN, …)
                          and lift the bounds on offsets and counts (SETRANGE, SCAN COUNT, …)
  --allow-eval            also run any Lua script or function (which can call any command)
  -h, --help              show this help`;

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-hosts': { type: 'string' },
  redis: { type: 'string' },
  token: { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-commands': { type: 'string' },
  'allow-admin': { type: 'boolean' },
  'allow-eval': { type: 'boolean' },
} as const;

/** The `bridge` subcommand. */
export const bridgeCommand: Command = {
  name: 'bridge',
  summary: 'a local Upstash-compatible REST endpoint in front of Redis (development)',
  help: HELP,
  async run(args, io) {
    const flags = parseFlags(args, FLAGS);
    const portText = flags.port ?? io.env.UPSTASH_BRIDGE_PORT;
    const options: BridgeOptions = {
      port: portText === undefined ? DEFAULT_PORT : portFrom(portText, flags.port === undefined ? 'UPSTASH_BRIDGE_PORT' : '--port'),
      host: flags.host ?? '127.0.0.1',
      redisUrl: flags.redis ?? io.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      allowAdmin: flags['allow-admin'] === true,
      allowEval: flags['allow-eval'] === true,
      onRedisError: (error) => io.err(`cachette bridge: Redis: ${error.message}`),
    };
    const token = flags.token ?? io.env.UPSTASH_BRIDGE_TOKEN;
    if (token !== undefined) options.token = tokenFrom(token, flags.token === undefined ? 'UPSTASH_BRIDGE_TOKEN' : '--token');
    if (flags['allowed-hosts'] !== undefined)
      options.allowedHosts = flags['allowed-hosts']
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
    if (flags['max-body-bytes'] !== undefined) options.maxBodyBytes = positiveIntegerFrom(flags['max-body-bytes'], '--max-body-bytes');
    if (flags['max-commands'] !== undefined) options.maxCommands = positiveIntegerFrom(flags['max-commands'], '--max-commands');

    // Loaded here, with iovalkey when it starts: `cachette --help` and the proxy need neither.
    const { startBridge } = await import('./bridge.ts');
    let bridge;
    try {
      bridge = await startBridge(options);
    } catch (error) {
      if (error instanceof MissingPeerError) {
        io.err(`cachette bridge: ${error.message}`);
        return 1;
      }
      if (error instanceof TypeError || error instanceof RangeError) throw new UsageError(error.message);
      io.err(`cachette bridge: ${startupProblem(error, { port: options.port ?? DEFAULT_PORT, host: options.host ?? '127.0.0.1', portChoice: '--port or the UPSTASH_BRIDGE_PORT variable' })}`);
      return 1;
    }
    const allowed = [options.allowAdmin && 'admin commands', options.allowEval && 'any script'].filter(Boolean);
    io.out(`cachette bridge: ${bridge.url} → ${redactUrl(options.redisUrl)} (data commands and the stores' scripts${allowed.length ? `, plus ${allowed.join(' and ')}` : ''})`);
    io.out(`  UPSTASH_REDIS_REST_URL=${bridge.url}`);
    io.out(`  UPSTASH_REDIS_REST_TOKEN=${bridge.token}`);
    return { stop: () => bridge.close() };
  },
};
