import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Redis as Valkey } from 'iovalkey';
import { iovalkey } from '../../adapters/valkey/iovalkey.ts';
import { bearerTokenCheck, tokenProblem } from '../shared/bearer-token.ts';
import { closeServer, listen, serverUrl } from '../shared/listen.ts';
import { BodyTooLargeError, readBody } from '../shared/read-body.ts';
import { BridgeError } from './bridge-error.ts';
import { browserGuard } from './browser-guard.ts';
import { commandPolicy, type CommandPolicy, type CommandPolicyOptions } from './command-policy.ts';
import { replyToJson, type ReplyJson } from './reply-json.ts';
import { redactUrl } from '../../src/util/redact-url.ts';
import { parseBatchBody, parseCommandBody, toCommand, type BridgeCommand } from './request-body.ts';

/** Options of {@link startBridge}. */
export interface BridgeOptions extends Omit<CommandPolicyOptions, 'maxGrowthBytes'> {
  /** The Redis/Valkey server behind the bridge, e.g. `redis://127.0.0.1:6379`. */
  redisUrl: string;
  /** The bearer token clients must send: at least 16 characters of visible ASCII; a random one when absent. */
  token?: string;
  /** TCP port; 0 or absent picks a free one. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1: the bridge is a development tool, not a gateway. */
  host?: string;
  /**
   * Host names requests may carry besides IP addresses, `localhost` (and names under
   * `.localhost`) and `host`; one starting with a dot accepts that name and every name under
   * it. Any other Host is refused (403), as is any request a browser sent (browser-guard.ts).
   */
  allowedHosts?: readonly string[];
  /**
   * Largest request body accepted, in bytes (413 above). Default 16 MiB. It also bounds how
   * far the commands of one request may grow strings through offsets (command-bounds.ts).
   */
  maxBodyBytes?: number;
  /** Most commands in one `/pipeline` or `/multi-exec` request (400 above). Default 10,000. */
  maxCommands?: number;
  /** Name of the bridge's Redis connection in CLIENT LIST. Default "upstash-bridge". */
  connectionName?: string;
  /**
   * Told about Redis connection errors (each failed reconnect attempt included). Requests
   * meanwhile fail with 502 and the cause, so ignoring these loses nothing.
   */
  onRedisError?: (error: Error) => void;
}

/** A running bridge. */
export interface Bridge {
  /** Base URL to give `@upstash/redis` (or `UPSTASH_REDIS_REST_URL`). */
  url: string;
  /** The token to give the client (or `UPSTASH_REDIS_REST_TOKEN`). */
  token: string;
  /** The port listened on. */
  port: number;
  /** Stops listening, drops open HTTP connections and closes the Redis connection. */
  close(): Promise<void>;
}

type Json = ReplyJson | { result: ReplyJson } | { error: string } | Array<{ result: ReplyJson } | { error: string }>;

const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
const DEFAULT_MAX_COMMANDS = 10_000;
const CONNECT_TIMEOUT_MS = 5000;
const ROUTES = new Set(['/', '/pipeline', '/multi-exec']);

/**
 * Starts a local endpoint that speaks the Upstash REST protocol (as `@upstash/redis` uses it)
 * in front of a real Redis: `POST /` runs one command, `POST /pipeline` a RESP pipeline,
 * `POST /multi-exec` a MULTI/EXEC transaction. Every request shares ONE Redis connection, on
 * which iovalkey pipelines commands — the bridge never holds more than one.
 * Commands pass the command policy (command-policy.ts: data commands and the stores' own
 * scripts by default), bodies the size, nesting and batch bounds.
 * Resolves once both the Redis connection and the HTTP listener are up.
 */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const problem = tokenProblem(token);
  if (problem !== undefined) throw new TypeError(`startBridge: "token" ${problem}`);
  const maxBodyBytes = positiveInteger(options.maxBodyBytes ?? DEFAULT_MAX_BODY, 'maxBodyBytes');
  const maxCommands = positiveInteger(options.maxCommands ?? DEFAULT_MAX_COMMANDS, 'maxCommands');
  const policy = commandPolicy({ ...options, maxGrowthBytes: maxBodyBytes });
  const host = options.host ?? '127.0.0.1';
  const guard = browserGuard({ host, allowedHosts: options.allowedHosts });

  const { Redis } = iovalkey('cachette/node/bridge');
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    // A command fails after one reconnect attempt instead of hanging an HTTP request for ever.
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    connectTimeout: CONNECT_TIMEOUT_MS,
    connectionName: options.connectionName ?? 'upstash-bridge',
  });
  // A listener must exist: without one the client reports every reconnect failure on stderr.
  redis.on('error', options.onRedisError ?? (() => {}));
  // The socket's error (ECONNREFUSED 127.0.0.1:1) says more than the rejection ("Connection is closed").
  let connectError: Error | undefined;
  const remember = (error: Error) => (connectError ??= error);
  redis.on('error', remember);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${redactUrl(options.redisUrl)}: ${(connectError ?? (error as Error)).message}`, { cause: error });
  } finally {
    redis.off('error', remember);
  }

  const authorized = bearerTokenCheck(token);
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof BridgeError ? error.status : 502;
      const message = error instanceof BridgeError ? error.message : `Redis is unavailable: ${(error as Error).message}`;
      // After a 413 the rest of the body is still in flight: do not keep the connection.
      if (status === 413) res.setHeader('connection', 'close');
      send(res, status, { error: message });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Before anything else, so that a page learns nothing, not even which paths exist.
    guard(req.headers);
    const path = new URL(req.url ?? '/', 'http://bridge').pathname;
    if (!ROUTES.has(path)) throw new BridgeError(404, `unknown path ${path}: use POST /, /pipeline or /multi-exec`);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      throw new BridgeError(405, `method ${req.method} is not allowed: the Upstash REST protocol here is POST only`);
    }
    const verdict = authorized(req.headers.authorization);
    if (verdict !== 'ok') throw new BridgeError(401, verdict === 'missing' ? 'Unauthorized: send "Authorization: Bearer <token>"' : 'Unauthorized: invalid token');
    const text = await readText(req, maxBodyBytes);
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    if (path === '/') {
      const [status, body] = await runOne(redis, policy, parseCommandBody(text), base64);
      send(res, status, body);
    } else {
      const commands = parseBatchBody(text, maxCommands).map((c, i) => toCommand(c, `command ${i + 1}`));
      send(res, 200, path === '/pipeline' ? await runPipeline(redis, policy, commands, base64) : await runTransaction(redis, policy, commands, base64));
    }
  }

  let port: number;
  try {
    port = await listen(server, options.port ?? 0, host);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return {
    url: serverUrl(host, port),
    token,
    port,
    async close() {
      await closeServer(server);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

async function readText(req: IncomingMessage, limit: number): Promise<string> {
  try {
    return (await readBody(req, limit)).toString('utf8');
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new BridgeError(413, `the body exceeds the bridge's limit of ${limit} bytes (maxBodyBytes / --max-body-bytes)`);
    throw error;
  }
}

async function runOne(redis: Valkey, policy: CommandPolicy, command: BridgeCommand, base64: boolean): Promise<[number, Json]> {
  const refused = policy.forRequest()(command);
  if (refused) return [refused.status, { error: refused.message }];
  try {
    return [200, { result: replyToJson(await redis.callBuffer(command.wireName, command.args), base64) }];
  } catch (error) {
    if (isReplyError(error)) return [400, { error: (error as Error).message }];
    throw error;
  }
}

// One RESP pipeline on the shared connection: every command is written before any reply is
// read. A refused command answers in its own slot and is not sent.
async function runPipeline(redis: Valkey, policy: CommandPolicy, commands: BridgeCommand[], base64: boolean): Promise<Json> {
  const refusals = commands.map(policy.forRequest());
  const pipeline = redis.pipeline();
  for (const [i, command] of commands.entries()) if (!refusals[i]) pipeline.callBuffer(command.wireName, command.args);
  const results = (await pipeline.exec()) ?? [];
  let next = 0;
  return refusals.map((refused) => (refused ? { error: refused.message } : slot(results[next++], base64)));
}

// MULTI … EXEC written in one go on the shared connection, so no other request's command can
// land inside the transaction. A command Redis rejects while queueing aborts it all (400).
async function runTransaction(redis: Valkey, policy: CommandPolicy, commands: BridgeCommand[], base64: boolean): Promise<Json> {
  const refused = commands.map(policy.forRequest()).find(Boolean);
  if (refused) throw new BridgeError(refused.status, refused.message);
  const multi = redis.multi();
  for (const command of commands) multi.callBuffer(command.wireName, command.args);
  try {
    return ((await multi.exec()) ?? []).map((r) => slot(r, base64));
  } catch (error) {
    if (!isReplyError(error)) throw error;
    const causes = ((error as { previousErrors?: Error[] }).previousErrors ?? []).map((e) => e.message);
    throw new BridgeError(400, [(error as Error).message, ...causes].join('; '));
  }
}

function slot(pair: [Error | null, unknown] | undefined, base64: boolean): { result: ReplyJson } | { error: string } {
  if (!pair) throw new Error('Redis returned fewer replies than commands');
  const [error, reply] = pair;
  if (error && !isReplyError(error)) throw error; // The connection failed: 502 for the whole request.
  return error ? { error: error.message } : { result: replyToJson(reply, base64) };
}

/** An error reply from the server (iovalkey's ReplyError), told apart by name: iovalkey is loaded only when the bridge starts. */
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`startBridge: "${name}" must be a positive integer, got ${value}`);
  return value;
}

function send(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
