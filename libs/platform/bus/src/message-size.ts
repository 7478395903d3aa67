import { MessageTooLargeError } from './failure-classification';
import { OutgoingMessage } from './message-bus.port';

/** Bytes a Kafka record batch (format v2) adds around its records. */
export const RECORD_BATCH_OVERHEAD = 61;

/**
 * An upper bound of one record's size in a Kafka record batch: its key, value and
 * headers, plus the largest varints of its lengths, timestamp and offset deltas.
 * The broker compares a batch of these with `message.max.bytes`.
 */
export function recordBytes(message: OutgoingMessage): number {
  let bytes = 5 + 1 + 10 + 5 + 5 + Buffer.byteLength(message.key) + 5 + 5;
  bytes += typeof message.value === 'string' ? Buffer.byteLength(message.value) : message.value.length;
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    bytes += 10 + Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  return bytes;
}

/**
 * Refuses the whole call when one message is larger than `maxMessageBytes`, before
 * anything is sent. A broker that refuses one partition's batch of a produce request
 * still appends the other partitions', so the size is checked here rather than left
 * to the broker.
 */
export function assertPublishable(topic: string, messages: readonly OutgoingMessage[], maxMessageBytes: number): void {
  for (const message of messages) {
    const bytes = RECORD_BATCH_OVERHEAD + recordBytes(message);
    if (bytes > maxMessageBytes) throw new MessageTooLargeError(topic, bytes, maxMessageBytes);
  }
}
