import { MigrationClass } from '@herald/database';
import { eventStoreMigrations } from '@herald/event-store';
import { readOnlyApiKeysMigration, workspaceCredentialsMigration } from '@herald/runtime';
import { CreateDefinitionReadModel1763900000000 } from './1763900000000-create-definition-read-model';
import { CreateAdmissions1763900100000 } from './1763900100000-create-admissions';
import { CreateRunProjections1763900200000 } from './1763900200000-create-run-projections';
import { CreateAudienceReadModel1763900400000 } from './1763900400000-create-audience-read-model';
import { CreateWaits1763900500000 } from './1763900500000-create-waits';
import { FollowTriggers1763900600000 } from './1763900600000-follow-triggers';
import { RoomForOutcomeUpdates1763900700000 } from './1763900700000-room-for-outcome-updates';
import { RoomForEveryOutcome1763900800000 } from './1763900800000-room-for-every-outcome';
import { MessageWarnings1763900900000 } from './1763900900000-message-warnings';

/** Migrations of the `engine` schema, oldest first: the run log, its outbox and its timers, then read models. */
export const ENGINE_MIGRATIONS: MigrationClass[] = [
  ...eventStoreMigrations('engine'),
  CreateDefinitionReadModel1763900000000,
  CreateAdmissions1763900100000,
  CreateRunProjections1763900200000,
  workspaceCredentialsMigration('engine', 1763900300000),
  CreateAudienceReadModel1763900400000,
  CreateWaits1763900500000,
  FollowTriggers1763900600000,
  RoomForOutcomeUpdates1763900700000,
  RoomForEveryOutcome1763900800000,
  MessageWarnings1763900900000,
  readOnlyApiKeysMigration('engine', 1765000000000),
];
