import { Controller } from '@nestjs/common';
import {
  DELIVERY_OUTCOME_TYPE,
  DeliveryOutcome,
  EventAccepted,
  EVENT_ACCEPTED_TYPE,
  TIMER_FIRED_TYPE,
  TOPICS,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_CHUNK_ACCEPTED_TYPE,
  TimerFiredMessage,
  TriggerAccepted,
  TriggerChunkAccepted,
  parseDeliveryOutcome,
  parseEventAccepted,
  parseTimerFired,
  parseTriggerAccepted,
  parseTriggerChunkAccepted,
} from '@herald/contracts';
import { ConsumerOf, ParsedMessage } from '@herald/runtime';
import { RunHost } from './run-host';

/** Chunks in one batch at most: each is up to 100 runs, which RunHost starts 500 at a time. */
const CHUNKS_PER_BATCH = 100;

/**
 * The inputs of runs, each topic in its own consumer group. All are keyed by the
 * run's recipient; two inputs of one run handled at once by two members (during a
 * rebalance) meet at the stream's expected position, and the loser decides again.
 * Invalid messages go to the dead-letter topic; a failing step is retried by the bus.
 * Triggers, events, fired timers and delivery outcomes are consumed in batches (a
 * partition's messages at a time, see RunHost); a batch that fails for another reason
 * than an outage is split into single messages, so one poison input is dead-lettered
 * alone.
 *
 * Triggers come on two topics: ingest's fan-out in chunks of recipients
 * (`notify.trigger.chunk_accepted.v1`, expanded here into the per-recipient triggers
 * they stand for) and single-run triggers (`notify.trigger.accepted.v1`: child runs,
 * broadcast members, and what an older ingest published). A chunk is one message to
 * the bus: a poison chunk is dead-lettered whole.
 */
@Controller()
export class RunInputsConsumer {
  constructor(private readonly runs: RunHost) {}

  @ConsumerOf({ groupId: 'herald.engine.triggers', topics: [TOPICS.triggerAccepted.name], messages: { type: TRIGGER_ACCEPTED_TYPE, parsePayload: parseTriggerAccepted }, batch: true })
  async triggers(triggers: readonly ParsedMessage<TriggerAccepted>[]): Promise<void> {
    await this.runs.startFromTriggers(triggers.map((t) => t.envelope));
  }

  @ConsumerOf({
    groupId: 'herald.engine.trigger_chunks',
    topics: [TOPICS.triggerChunkAccepted.name],
    messages: { type: TRIGGER_CHUNK_ACCEPTED_TYPE, parsePayload: parseTriggerChunkAccepted },
    batch: { maxBatchMessages: CHUNKS_PER_BATCH },
  })
  async triggerChunks(chunks: readonly ParsedMessage<TriggerChunkAccepted>[]): Promise<void> {
    await this.runs.startFromTriggerChunks(chunks.map((c) => c.envelope));
  }

  @ConsumerOf({ groupId: 'herald.engine.events', topics: [TOPICS.eventAccepted.name], messages: { type: EVENT_ACCEPTED_TYPE, parsePayload: parseEventAccepted }, batch: true })
  async events(events: readonly ParsedMessage<EventAccepted>[]): Promise<void> {
    await this.runs.eventsAccepted(events.map((e) => e.envelope));
  }

  @ConsumerOf({ groupId: 'herald.engine.timers', topics: [TOPICS.timerFired.name], messages: { type: TIMER_FIRED_TYPE, parsePayload: parseTimerFired }, batch: true })
  async timers(timers: readonly ParsedMessage<TimerFiredMessage>[]): Promise<void> {
    await this.runs.timersFired(timers.map(({ payload }) => ({ streamId: payload.stream_id, timerId: payload.timer_id })));
  }

  @ConsumerOf({ groupId: 'herald.engine.outcomes', topics: [TOPICS.deliveryOutcome.name], messages: { type: DELIVERY_OUTCOME_TYPE, parsePayload: parseDeliveryOutcome }, batch: true })
  async outcomes(outcomes: readonly ParsedMessage<DeliveryOutcome>[]): Promise<void> {
    await this.runs.deliveryOutcomes(outcomes.map(({ envelope, payload }) => ({ workspaceId: envelope.workspace_id, outcome: payload })));
  }
}
