import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { REPLAY_PROGRESSED_TYPE, ReplayProgressed, TOPICS, parseReplayProgressed } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { ReplayJobRepository } from './replay-job.repository';

/** Applies the engine's replay progress reports to their jobs (one consumer group shared by the replicas). */
@Controller()
export class ReplayProgressConsumer {
  constructor(private readonly jobs: ReplayJobRepository) {}

  @ConsumerOf({ groupId: 'herald.management.replays', topics: [TOPICS.replayProgressed.name], messages: { type: REPLAY_PROGRESSED_TYPE, parsePayload: parseReplayProgressed } })
  async apply(@Payload() progress: ReplayProgressed): Promise<void> {
    await this.jobs.applyProgress(progress);
  }
}
