const M = 0x5bd1e995;
const SEED = 0x9747b28c;
let scratch = Buffer.allocUnsafe(256);

/**
 * Kafka's murmur2 (the Java client's, as kafkajs ports it), with 32-bit
 * multiplication through Math.imul and keys encoded into a reused buffer. kafkajs's
 * own port allocates a Buffer and several Long objects per key, which made key
 * hashing over half the cost of an in-process publish (bench/RESULTS.md, "Bus").
 * The unit test checks it against kafkajs on many keys.
 */
export function murmur2(key: string): number {
  const length = Buffer.byteLength(key, 'utf8');
  if (length > scratch.length) scratch = Buffer.allocUnsafe(length * 2);
  scratch.write(key, 0, 'utf8');
  const data = scratch;
  let h = (SEED ^ length) | 0;
  const words = length >>> 2;
  for (let i = 0; i < words; i++) {
    const at = i << 2;
    let k = data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2] << 16;
  if (rest >= 2) h ^= data[tail + 1] << 8;
  if (rest >= 1) {
    h ^= data[tail];
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}
