export { EventStore } from './event-store';
export type {
  AppendRequest,
  AppendResult,
  BatchAppendResult,
  BatchProjection,
  CompactOptions,
  NewEvent,
  OutboxMessage,
  RecordedEvent,
  StreamFromSnapshot,
  StreamSnapshot,
  TimerSchedule,
} from './event-store.types';
export { StreamConflictError } from './stream-conflict.error';
export { eventStoreMigrations, outboxMigrations } from './migrations/event-store-migrations';
export { writeOutbox } from './outbox-writer';
export { eventStoreTables } from './event-store-tables';
export type { EventStoreLogger } from './event-store-logger';
export type { PollingOptions } from './polling/polling-options';
export { OutboxRelay } from './relay/outbox-relay';
export type { OutboxBacklog, OutboxRelayOptions, ParkedRow } from './relay/outbox-relay';
export { TimerPoller } from './timers/timer-poller';
export type { TimerBacklog, TimerPollerOptions } from './timers/timer-poller';
export { StreamProcessor } from './stream-processor';
export type { BatchInput, BatchProjectionPolicy, FollowUpAsk, ProcessBatchOptions, ProcessedStep, SnapshotPolicy, StepEffects, StreamCodec, StreamProcessorOptions } from './stream-processor';
export { StreamCompactor } from './compaction/stream-compactor';
export type { StreamCompactorOptions } from './compaction/stream-compactor';
