/**
 * `npm run bridge -- --port 8079 --redis redis://127.0.0.1:6379 --token secret`
 *
 * Runs a local Upstash-compatible REST endpoint in front of a real Redis, so code written for
 * `@upstash/redis` (edge functions, Workers) runs and is tested without a cloud account.
 * Flags fall back to UPSTASH_BRIDGE_PORT, REDIS_URL and UPSTASH_BRIDGE_TOKEN; without a token
 * a random one is made and printed.
 */
import { parseArgs } from 'node:util';
import { startBridge } from './bridge.ts';

const USAGE = 'usage: npm run bridge -- [--port 8079] [--host 127.0.0.1] [--redis redis://127.0.0.1:6379] [--token <secret>] [--max-body-bytes 16777216]';

function main(): Promise<void> | void {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        redis: { type: 'string' },
        token: { type: 'string' },
        'max-body-bytes': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) return void console.log(USAGE);
  const port = integer('--port', values.port ?? process.env.UPSTASH_BRIDGE_PORT ?? '8079');
  const maxBodyBytes = values['max-body-bytes'] === undefined ? undefined : integer('--max-body-bytes', values['max-body-bytes']);
  if (port === undefined || (values['max-body-bytes'] !== undefined && maxBodyBytes === undefined)) return;
  return run({
    port,
    host: values.host,
    redisUrl: values.redis ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    token: values.token ?? process.env.UPSTASH_BRIDGE_TOKEN,
    maxBodyBytes,
    onRedisError: (error) => console.error(`upstash bridge: Redis: ${error.message}`),
  });
}

async function run(options: Parameters<typeof startBridge>[0]): Promise<void> {
  let bridge;
  try {
    bridge = await startBridge(options);
  } catch (error) {
    return fail((error as Error).message);
  }
  console.log(`upstash bridge: ${bridge.url} → ${options.redisUrl}`);
  console.log(`  UPSTASH_REDIS_REST_URL=${bridge.url}`);
  console.log(`  UPSTASH_REDIS_REST_TOKEN=${bridge.token}`);
  const stop = () => void bridge.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function integer(flag: string, text: string): number | undefined {
  const n = Number(text);
  if (Number.isInteger(n) && n >= 0) return n;
  fail(`${flag} must be a non-negative integer, got "${text}"\n${USAGE}`);
  return undefined;
}

function fail(message: string): void {
  console.error(`upstash bridge: ${message}`);
  process.exitCode = 2;
}

await main();
