// README's Quickstart as written, against a port where nothing listens.
import { createCache } from 'cachette';
import { valkeyStore } from 'cachette/adapters/valkey';

const db = { users: { find: async (id) => ({ id, name: 'Ada' }) } };

const cache = createCache({ store: valkeyStore('redis://127.0.0.1:1'), ttl: '30s', grace: '5m' });
const id = '42';
const user = await cache.getOrSet(`user:${id}`, () => db.users.find(id));
console.log(user);
await cache.close();
