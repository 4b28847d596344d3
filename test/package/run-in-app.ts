/** Runs commands inside an app the package checks installed the tarball into. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a command run in an app did. */
export interface AppRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` in `app` (with `env`, default this process's); resolves its exit code and output instead of throwing on failure. */
export async function runInApp(app: string, file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<AppRun> {
  try {
    const { stdout, stderr } = await run(file, [...args], { cwd: app, timeout: 60_000, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
