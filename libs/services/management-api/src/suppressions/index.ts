import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateSuppressions1763701650000 } from './migrations/1763701650000-create-suppressions';
import { SuppressionChangesConsumer } from './suppression-changes.consumer';
import { SuppressionEntity, SuppressionRepository } from './suppression.repository';
import { SuppressionsController } from './suppressions.controller';

/** The suppression list's API, and management's copy of it kept from `notify.suppression.changed.v1`. */
export const SUPPRESSION_CONTROLLERS: Type[] = [SuppressionsController, SuppressionChangesConsumer];
export const SUPPRESSION_PROVIDERS: Provider[] = [SuppressionRepository];
export const SUPPRESSION_ENTITIES = [SuppressionEntity];
export const SUPPRESSION_MIGRATIONS: MigrationClass[] = [CreateSuppressions1763701650000];
