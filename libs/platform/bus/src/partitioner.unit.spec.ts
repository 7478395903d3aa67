import { PartitionMetadata, Partitioners } from 'kafkajs';
import { murmur2 } from './murmur2';
import { partitionFor } from './partitioner';

const kafkajsPartitioner = Partitioners.DefaultPartitioner();

function metadata(partitions: number): PartitionMetadata[] {
  return Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));
}

/** A deterministic spread of keys: ASCII, multi-byte UTF-8, every tail length, long ones. */
function keys(): string[] {
  const out = ['', 'a', 'ab', 'abc', 'abcd', 'ws-1:user-1', 'ünïcødé:🙂', 'x'.repeat(300), '日本語のキー'];
  let seed = 42;
  const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < 5_000; i++) {
    const length = next() % 40;
    let key = '';
    for (let j = 0; j < length; j++) key += String.fromCodePoint(next() % 5 === 0 ? 0x80 + (next() % 0x2000) : 0x20 + (next() % 0x5f));
    out.push(`ws-${next() % 100}:${key}`);
  }
  return out;
}

describe('partitionFor', () => {
  it.each([1, 3, 6, 12, 64])('puts every key where kafkajs (Kafka) would, with %i partitions', (partitions) => {
    const meta = metadata(partitions);
    for (const key of keys()) {
      expect(partitionFor('t', key, partitions)).toBe(kafkajsPartitioner({ topic: 't', partitionMetadata: meta, message: { key, value: null } }));
    }
  });

  it('matches the Java client on known vectors', () => {
    // Values from Kafka's own UtilsTest.testMurmur2 (org.apache.kafka.common.utils).
    expect(murmur2('21')).toBe(-973932308);
    expect(murmur2('foobar')).toBe(-790332482);
    expect(murmur2('a-little-bit-long-string')).toBe(-985981536);
    expect(murmur2('a-little-bit-longer-string')).toBe(-1486304829);
    expect(murmur2('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8')).toBe(-58897971);
  });
});
