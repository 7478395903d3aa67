import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateReplayJobs1763701300000 } from './migrations/1763701300000-create-replay-jobs';
import { ReplayProgressConsumer } from './replay-progress.consumer';
import { ReplayChunkEntity, ReplayJobEntity, ReplayJobRepository } from './replay-job.repository';
import { ReplaysController } from './replays.controller';

/** What-if replays (`/v1/{workspace}/workflow/{slug}/replay/...`): jobs the engine computes. */
export const REPLAY_CONTROLLERS: Type[] = [ReplaysController, ReplayProgressConsumer];
export const REPLAY_PROVIDERS: Provider[] = [ReplayJobRepository];
export const REPLAY_ENTITIES = [ReplayJobEntity, ReplayChunkEntity];
export const REPLAY_MIGRATIONS: MigrationClass[] = [CreateReplayJobs1763701300000];
