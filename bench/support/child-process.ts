import { spawn } from 'node:child_process';

/**
 * Runs `node file args…` (pinned to `cpu` with taskset when given) and resolves with the last
 * line it printed on stdout, parsed as JSON; its stderr lines go to `onLine`. A child that
 * fails fails the run, with the end of its error output.
 */
export function runJsonChild<T>(file: string, args: readonly string[], cpu: number | undefined, onLine: (line: string) => void = () => undefined): Promise<T> {
  const argv = [process.execPath, file, ...args];
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
