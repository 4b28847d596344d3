/**
 * A local Upstash-compatible REST endpoint in front of a real Redis, for development and
 * tests: `startBridge({ redisUrl })` → `{ url, token, close() }`. Node only (node:http).
 */
export { startBridge, type Bridge, type BridgeOptions } from './bridge.ts';
