import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { REPLAY_PROGRESSED_TYPE, TOPICS, parseReplayProgressed } from '@herald/contracts';
import { ConsumerRegistry } from '@herald/runtime';
import { ReplayJobRepository } from './replay-job.repository';

/** Applies the engine's replay progress reports to their jobs (one consumer group shared by the replicas). */
@Injectable()
export class ReplayProgressConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly jobs: ReplayJobRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.replayProgressed.name], {
      groupId: 'herald.management.replays',
      type: REPLAY_PROGRESSED_TYPE,
      parsePayload: parseReplayProgressed,
      handle: (progress) => this.jobs.applyProgress(progress),
    });
  }
}
