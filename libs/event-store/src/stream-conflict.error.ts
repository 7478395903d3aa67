/**
 * Another writer appended to the stream after the caller read it. Nothing of the
 * append was written; the caller re-reads the stream, decides again and retries.
 */
export class StreamConflictError extends Error {
  readonly code = 'stream_conflict' as const;

  constructor(
    readonly streamId: string,
    readonly expectedPosition: number,
  ) {
    super(`stream ${streamId} has moved past position ${expectedPosition}`);
    this.name = 'StreamConflictError';
  }
}
