import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A delay proxy running in its own process. */
export interface ProxyProcess {
  /** redis:// URL that reaches the server through the proxy. */
  url: string;
  /** CPU the proxy process has used so far, µs. */
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

const entry = fileURLToPath(new URL('./delay-proxy.ts', import.meta.url));

/**
 * Forks the proxy in front of `targetUrl` with `delayUs` per round trip. The child reuses this
 * process's loader flags (tsx), so it runs the TypeScript file as is.
 */
export async function spawnProxy(targetUrl: string, delayUs: number): Promise<ProxyProcess> {
  const targetPort = Number(new URL(targetUrl).port);
  const child: ChildProcess = fork(entry, [String(targetPort), String(delayUs)], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`delay proxy exited with ${code} before listening`)));
    child.once('message', (m) => resolve((m as { port: number }).port));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    cpuUs: () =>
      new Promise((resolve) => {
        child.once('message', (m) => {
          const cpu = (m as { cpu: NodeJS.CpuUsage }).cpu;
          resolve(cpu.user + cpu.system);
        });
        child.send('cpu');
      }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
