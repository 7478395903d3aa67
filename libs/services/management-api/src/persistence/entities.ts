import { AccountEntity } from '../accounts/account.repository';
import { ApiKeyEntity } from '../api-keys/api-key.repository';
import { BROWSER_KEY_ENTITIES } from '../browser-keys';
import { STATUS_WEBHOOK_ENTITIES } from '../status-webhooks';
import { SUPPRESSION_ENTITIES } from '../suppressions';
import { ServiceTokenEntity } from '../auth/service-token.repository';
import { OPERATOR_ENTITY_SCHEMAS } from '../operators';
import { EVENT_ENTITIES } from '../events';
import { CategoryTranslationEntity, PreferenceCategoryVersionEntity } from '../preference-categories';
import { REPLAY_ENTITIES } from '../replays';
import { SCHEMA_ENTITIES } from '../schemas';
import { TEMPLATE_ENTITIES } from '../templates';
import { TRANSLATION_ENTITIES } from '../translations';
import { VENDOR_ENTITIES } from '../vendors';
import { WorkspaceEntity } from '../workspaces/workspace.repository';
import { WorkspaceKeyEntity } from '../workspace-keys/workspace-key.repository';
import { WORKFLOW_ENTITIES } from '../workflows';

/**
 * The tables management-api reads and writes through TypeORM's repositories. Registered
 * with its DataSource for their column mappings only: the migrations create the tables.
 */
export const MANAGEMENT_ENTITIES = [AccountEntity, ApiKeyEntity, WorkspaceEntity, WorkspaceKeyEntity, ...BROWSER_KEY_ENTITIES, ServiceTokenEntity, ...OPERATOR_ENTITY_SCHEMAS, ...REPLAY_ENTITIES, PreferenceCategoryVersionEntity, CategoryTranslationEntity, ...STATUS_WEBHOOK_ENTITIES, ...SUPPRESSION_ENTITIES, ...TEMPLATE_ENTITIES, ...SCHEMA_ENTITIES, ...EVENT_ENTITIES, ...TRANSLATION_ENTITIES, ...VENDOR_ENTITIES, ...WORKFLOW_ENTITIES];
