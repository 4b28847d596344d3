/**
 * @nestjs/cache-manager over cachette: Nest's CacheModule takes cache-manager 7 stores, which are
 * Keyv instances, and cachette/keyv is a Keyv store over any cachette store. Valkey when
 * REDIS_URL is set (every instance shares it), else process memory. Run: `tsx main.ts`.
 *
 * Plain decorator-free Nest (an application context and a factory provider), so it runs under
 * tsx and esbuild, which emit no decorator metadata.
 */
import 'reflect-metadata';
import { CACHE_MANAGER, CacheModule } from '@nestjs/cache-manager';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Cache } from 'cache-manager';
import { memoryStore } from 'cachette/adapters/memory';
import { valkeyStore } from 'cachette/adapters/valkey';
import { keyvStore } from 'cachette/keyv';
import Keyv from 'keyv';

const store = process.env.REDIS_URL ? valkeyStore(process.env.REDIS_URL) : memoryStore();

/** A service that reads a report through Nest's cache: computed once, then served from cachette. */
class Reports {
  computed = 0;
  constructor(private readonly cache: Cache) {}

  async report(id: string): Promise<{ id: string; computed: number }> {
    const cached = await this.cache.get<{ id: string; computed: number }>(`report:${id}`);
    if (cached) return cached;
    const report = { id, computed: ++this.computed };
    await this.cache.set(`report:${id}`, report, 60_000);
    return report;
  }
}

@Module({
  imports: [CacheModule.register({ stores: [new Keyv({ store: keyvStore(store), namespace: 'nest-example' })] })],
  providers: [{ provide: Reports, useFactory: (cache: Cache) => new Reports(cache), inject: [CACHE_MANAGER] }],
})
class AppModule {}

const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
const reports = app.get(Reports);
const first = await reports.report('42');
const second = await reports.report('42');
console.log(`report ${first.id} computed ${first.computed}, served again computed ${second.computed}`);
await app.close();
await store.close();
