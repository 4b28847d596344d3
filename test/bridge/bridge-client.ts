import { startBridge, type Bridge, type BridgeOptions } from '../../products/bridge/index.ts';
import { redisUrl } from '../support/redis-env.ts';

/** What a raw request to the bridge answered. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body. */
  body: unknown;
}

/** A bridge in front of the suite's redis-server, with a connection name unique to this run. */
export function openBridge(options: Partial<BridgeOptions> = {}): Promise<Bridge> {
  return startBridge({ redisUrl: redisUrl!, connectionName: uniqueName('bridge'), ...options });
}

/** Where a bridge listens and the token it takes: one in this process, or a `cachette bridge` process. */
export type BridgeEndpoint = Pick<Bridge, 'url' | 'token'>;

/** POSTs `body` (JSON-encoded unless already a string) to `path` with the bridge's token. */
export async function post(bridge: BridgeEndpoint, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request(bridge, path, {
    method: 'POST',
    headers: { authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Any request to the bridge, body parsed as JSON. */
export async function request(bridge: BridgeEndpoint, path: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(bridge.url + path, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** A name no other test file (sharing the redis-server) uses. */
export function uniqueName(what: string): string {
  return `${what}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
