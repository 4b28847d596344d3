// Fastify 4, installed as `fastify4` for these tests; the part used here types as Fastify 5 does.
declare module 'fastify4' {
  import Fastify from 'fastify';
  export default Fastify;
}
