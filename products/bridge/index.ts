/**
 * cachette/node/bridge: a local Upstash-compatible REST endpoint in front of a real Redis, the
 * development server that `cachette bridge` runs, for starting it from your own tests:
 * `startBridge({ redisUrl })` → `{ url, token, close() }`. Node only (node:http, iovalkey).
 */
export { startBridge, type Bridge, type BridgeOptions } from './bridge.ts';
export { STORE_SCRIPTS, type CommandPolicyOptions } from './command-policy.ts';
