import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  DELIVERY_OUTCOME_TYPE,
  EVENT_ACCEPTED_TYPE,
  TIMER_FIRED_TYPE,
  TOPICS,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_CHUNK_ACCEPTED_TYPE,
  parseDeliveryOutcome,
  parseEventAccepted,
  parseTimerFired,
  parseTriggerAccepted,
  parseTriggerChunkAccepted,
} from '@herald/contracts';
import { ConsumerRegistry } from '@herald/runtime';
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
@Injectable()
export class RunInputsConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly runs: RunHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consumeBatches([TOPICS.triggerAccepted.name], {
      groupId: 'herald.engine.triggers',
      type: TRIGGER_ACCEPTED_TYPE,
      parsePayload: parseTriggerAccepted,
      handleBatch: (triggers) => this.runs.startFromTriggers(triggers.map((t) => t.envelope)),
    });
    await this.consumers.consumeBatches(
      [TOPICS.triggerChunkAccepted.name],
      {
        groupId: 'herald.engine.trigger_chunks',
        type: TRIGGER_CHUNK_ACCEPTED_TYPE,
        parsePayload: parseTriggerChunkAccepted,
        handleBatch: (chunks) => this.runs.startFromTriggerChunks(chunks.map((c) => c.envelope)),
      },
      CHUNKS_PER_BATCH,
    );
    await this.consumers.consumeBatches([TOPICS.eventAccepted.name], {
      groupId: 'herald.engine.events',
      type: EVENT_ACCEPTED_TYPE,
      parsePayload: parseEventAccepted,
      handleBatch: (events) => this.runs.eventsAccepted(events.map((e) => e.envelope)),
    });
    await this.consumers.consumeBatches([TOPICS.timerFired.name], {
      groupId: 'herald.engine.timers',
      type: TIMER_FIRED_TYPE,
      parsePayload: parseTimerFired,
      handleBatch: (timers) => this.runs.timersFired(timers.map(({ payload }) => ({ streamId: payload.stream_id, timerId: payload.timer_id }))),
    });
    await this.consumers.consumeBatches([TOPICS.deliveryOutcome.name], {
      groupId: 'herald.engine.outcomes',
      type: DELIVERY_OUTCOME_TYPE,
      parsePayload: parseDeliveryOutcome,
      handleBatch: (outcomes) => this.runs.deliveryOutcomes(outcomes.map(({ envelope, payload }) => ({ workspaceId: envelope.workspace_id, outcome: payload }))),
    });
  }
}
