import { murmur2 } from './murmur2';

/**
 * The partition Kafka's default partitioner picks for a key (murmur2, made
 * positive, modulo the partition count), so the in-process bus places every key
 * exactly where Kafka would, and the Kafka producer uses the same function.
 */
export function partitionFor(_topic: string, key: string, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
