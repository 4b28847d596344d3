/**
 * The full-stack app on Node through @hono/node-server: one process, or FULLSTACK_WORKERS > 1
 * workers under node:cluster sharing the port (the primary accepts, the workers serve).
 * Started by the harness: `node --import tsx bench/fullstack/servers/node.ts` with PORT,
 * REDIS_URL, FULLSTACK_CONTENDER and FULLSTACK_PAGE set.
 */
import cluster from 'node:cluster';
import { serve } from '@hono/node-server';
import { reportException } from '../app/app.ts';
import { openServerApp, portFrom, reportUnhandled } from './server-app.ts';

const workers = Number(process.env.FULLSTACK_WORKERS ?? '1');
if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`FULLSTACK_WORKERS must be a positive integer, got "${process.env.FULLSTACK_WORKERS}"`);

reportUnhandled((event, listener) => process.on(event, listener));

if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // A worker that dies under load is an error the table must show, not a quiet restart.
  cluster.on('exit', (worker, code, signal) => {
    reportException(new Error(`cluster worker ${worker.id} exited (code ${code}, signal ${signal})`));
  });
} else {
  const { app } = await openServerApp('node', process.env);
  serve({ fetch: app.fetch, port: portFrom(process.env), hostname: '127.0.0.1' });
  // A cluster worker whose primary is gone has no one to stop it: leave with it.
  if (cluster.isWorker) process.on('disconnect', () => process.exit(0));
}
