/**
 * Where the local Upstash-compatible bridge's command lives. It is moving to
 * runtimes/node/bridge: that move changes this one line and nothing else in the bench.
 */
export const BRIDGE_MAIN = 'runtimes/upstash-bridge/main.ts';
