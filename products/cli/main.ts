#!/usr/bin/env node
/**
 * The `cachette` bin: runs the command line, and for a server it started, stops it on SIGINT
 * or SIGTERM. Only this file touches `process`.
 */
import { runCli } from './run.ts';

const io = {
  out: (line: string) => console.log(line),
  err: (line: string) => console.error(line),
  env: process.env,
};

try {
  const result = await runCli(process.argv.slice(2), io);
  if (typeof result === 'number') {
    process.exitCode = result;
  } else {
    const stop = () =>
      void result.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`cachette: ${(error as Error).message}`);
          process.exit(1);
        },
      );
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
} catch (error) {
  console.error(`cachette: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
