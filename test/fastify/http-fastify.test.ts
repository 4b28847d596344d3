import Fastify4 from 'fastify4';
import { behaviourOverMemory, behaviourOverValkey } from '../http/binding-suites.ts';
import { fastifyTarget, type FastifyFactory } from './fastify-target.ts';

// The HTTP behaviour suite, unchanged, on cachette/fastify: Fastify 5 over memory and Valkey, as
// Express runs it, and Fastify 4 (the lowest supported) over memory.
behaviourOverMemory('memory store', (store) => fastifyTarget(store));
behaviourOverMemory('Fastify 4, memory store', (store) => fastifyTarget(store, Fastify4 as unknown as FastifyFactory, 'fastify 4'));
behaviourOverValkey('valkey store', (store) => fastifyTarget(store));
