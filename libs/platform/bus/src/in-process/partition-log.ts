import { MessageHeaders } from '../message-bus.port';

export interface StoredMessage {
  readonly offset: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: MessageHeaders;
  readonly timestamp: number;
}

/**
 * One partition of an in-process topic: an append-only array with a moving base
 * offset, so fully consumed prefixes can be dropped without renumbering offsets.
 */
export class PartitionLog {
  private messages: StoredMessage[] = [];
  /** Per message held, the bytes appended to this log before it (a running total, so a backlog's size is one subtraction). */
  private bytesBefore: number[] = [];
  private appendedBytes = 0;
  private waiters: Array<() => void> = [];

  /** `baseOffset`: where a partition restored from a journal continues. */
  constructor(private baseOffset = 0) {}

  get endOffset(): number {
    return this.baseOffset + this.messages.length;
  }

  get startOffset(): number {
    return this.baseOffset;
  }

  append(message: Omit<StoredMessage, 'offset'>): number {
    const offset = this.endOffset;
    this.messages.push({ ...message, offset });
    this.bytesBefore.push(this.appendedBytes);
    this.appendedBytes += storedBytes(message);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
    return offset;
  }

  /** The message at `offset`, or undefined when it is not written yet. */
  at(offset: number): StoredMessage | undefined {
    const index = Math.max(offset, this.baseOffset) - this.baseOffset;
    return this.messages[index];
  }

  /** Bytes (keys, values and headers) of the messages held at and after `offset`. */
  bytesFrom(offset: number): number {
    const index = Math.max(offset, this.baseOffset) - this.baseOffset;
    return index >= this.bytesBefore.length ? 0 : this.appendedBytes - this.bytesBefore[index];
  }

  /** Resolves when a message at or after `offset` exists, or the signal aborts. */
  waitBeyond(offset: number, signal: AbortSignal): Promise<void> {
    if (offset < this.endOffset || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.push(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  /** Forgets messages below `offset` (every group that reads this log is past them). */
  truncateBefore(offset: number): void {
    const drop = Math.min(offset, this.endOffset) - this.baseOffset;
    // Splicing on every commit would be quadratic; drop in chunks.
    if (drop < 1024) return;
    this.messages = this.messages.slice(drop);
    this.bytesBefore = this.bytesBefore.slice(drop);
    this.baseOffset += drop;
  }
}

function storedBytes(message: Pick<StoredMessage, 'key' | 'value' | 'headers'>): number {
  let bytes = Buffer.byteLength(message.key) + message.value.length;
  for (const [name, value] of Object.entries(message.headers)) bytes += name.length + Buffer.byteLength(value);
  return bytes;
}
