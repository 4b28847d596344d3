// README's Express snippet as written (storeFromEnv from cachette/node), then the same with
// storeFromEnv from cachette/express; in an app that has express and no Hono package at all.
import express from 'express';
import { cache, storeFromEnv as fromExpress } from 'cachette/express';
import { storeFromEnv } from 'cachette/node';

for (const [entry, pick] of [
  ['cachette/node', storeFromEnv],
  ['cachette/express', fromExpress],
]) {
  let calls = 0;
  const app = express();
  app.use('/api', cache({ store: await pick({ log: false }), ttl: '30s' }));
  app.get('/api/time', (_request, res) => res.json({ calls: ++calls }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${server.address().port}/api/time`;
  const statuses = [];
  for (let i = 0; i < 2; i++) statuses.push((await fetch(url)).headers.get('cache-status').split(';')[1].trim());
  await new Promise((resolve) => server.close(resolve));
  console.log(`${entry}: ${statuses.join(', ')}, ${calls} call`);
}
