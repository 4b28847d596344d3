/**
 * Payloads from this size on are compressed by default on a Valkey server (one or a cluster): in
 * the same data centre, smaller ones cost more CPU to compress than their bytes cost to send.
 */
export const COMPRESSION_THRESHOLD = 32 * 1024;
