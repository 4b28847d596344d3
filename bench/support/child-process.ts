import { spawn } from 'node:child_process';

/** The JavaScript runtime a child runs on: this Node, or the repository's Bun or Deno. */
export type ChildRuntime = 'node' | 'bun' | 'deno';

/** How to start `file` on `runtime` (Bun and Deno from node_modules/.bin, as scripts/test does). */
function runtimeArgv(runtime: ChildRuntime, file: string): string[] {
  if (runtime === 'bun') return ['node_modules/.bin/bun', file];
  if (runtime === 'deno') return ['node_modules/.bin/deno', 'run', '--allow-all', '--node-modules-dir=manual', file];
  return [process.execPath, file];
}

/**
 * Runs `node file args…` (or Bun, or Deno; pinned to `cpu` with taskset when given) and resolves
 * with the last line it printed on stdout, parsed as JSON; its stderr lines go to `onLine`. A
 * child that fails fails the run, with the end of its error output.
 */
export function runJsonChild<T>(file: string, args: readonly string[], cpu: number | undefined, onLine: (line: string) => void = () => undefined, runtime: ChildRuntime = 'node'): Promise<T> {
  const argv = [...runtimeArgv(runtime, file), ...args];
  const [command, ...rest] = cpu === undefined ? argv : ['taskset', '-c', String(cpu), ...argv];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line.trim()) onLine(line);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1);
      if (code === 0 && last) resolve(JSON.parse(last) as T);
      else reject(new Error(`${file} exited with ${code}:\n${err.slice(-2000)}`));
    });
  });
}
