import { PartitionMetadata, Partitioners } from 'kafkajs';

const kafkaDefaultPartitioner = Partitioners.DefaultPartitioner();
const metadataByCount = new Map<number, PartitionMetadata[]>();

function metadataFor(partitions: number): PartitionMetadata[] {
  let metadata = metadataByCount.get(partitions);
  if (!metadata) {
    metadata = Array.from({ length: partitions }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    metadataByCount.set(partitions, metadata);
  }
  return metadata;
}

/**
 * The partition Kafka's default (murmur2) partitioner picks for a key, so the
 * in-process bus places every key exactly where Kafka would.
 */
export function partitionFor(topic: string, key: string, partitions: number): number {
  return kafkaDefaultPartitioner({ topic, partitionMetadata: metadataFor(partitions), message: { key, value: null } });
}
