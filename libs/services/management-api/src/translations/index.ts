import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateTranslations1763701000000 } from './migrations/1763701000000-create-translations';
import { TranslationDraftEntity, TranslationRepository, TranslationVersionEntity } from './translation.repository';
import { TranslationsController } from './translations.controller';

/** Translation (locale) files of templates (`/v1/{workspace}/translation/...`). */
export const TRANSLATION_CONTROLLERS: Type[] = [TranslationsController];
export const TRANSLATION_PROVIDERS: Provider[] = [TranslationRepository];
export const TRANSLATION_ENTITIES = [TranslationDraftEntity, TranslationVersionEntity];
export const TRANSLATION_MIGRATIONS: MigrationClass[] = [CreateTranslations1763701000000];
