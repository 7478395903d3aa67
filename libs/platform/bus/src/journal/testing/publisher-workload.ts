/** What testing/publisher-process.ts publishes: producers with their own keys, one publish at a time each. */
export const PRODUCERS = 4;
export const KEYS_PER_PRODUCER = 5;
export const PARTITIONS = 4;

export function keyOf(producer: number, seq: number): string {
  return `p${producer}:k${seq % KEYS_PER_PRODUCER}`;
}
