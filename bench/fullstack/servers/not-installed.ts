// Stands in for an optional dependency a peer imports only on demand and that is not installed
// (node-redis's `@node-rs/xxhash`): importing it fails as it does on Node, instead of leaving
// the Worker bundle with an import workerd cannot resolve at load.
throw new Error('this optional dependency is not installed');
