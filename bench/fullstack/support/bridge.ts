/**
 * How the local Upstash-compatible bridge is started: the `cachette bridge` command, whose
 * entry moved from runtimes/upstash-bridge to the package's command line. A future move
 * changes this one line and nothing else in the bench.
 */
export const BRIDGE_COMMAND: readonly [script: string, ...args: string[]] = ['products/cli/main.ts', 'bridge'];
