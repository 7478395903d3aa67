import { AccountEntity } from '../accounts/account.repository';
import { ApiKeyEntity } from '../api-keys/api-key.repository';
import { BROWSER_KEY_ENTITIES } from '../browser-keys';
import { STATUS_WEBHOOK_ENTITIES } from '../status-webhooks';
import { SUPPRESSION_ENTITIES } from '../suppressions';
import { ServiceTokenEntity } from '../auth/service-token.repository';
import { OPERATOR_ENTITY_SCHEMAS } from '../operators';
import { CategoryTranslationEntity } from '../preference-categories';
import { REPLAY_ENTITIES } from '../replays';
import { TEMPLATE_ENTITIES } from '../templates';
import { WorkspaceEntity } from '../workspaces/workspace.repository';
import { WorkspaceKeyEntity } from '../workspace-keys/workspace-key.repository';

/**
 * The tables management-api reads and writes through TypeORM's repositories. Registered
 * with its DataSource for their column mappings only: the migrations create the tables.
 */
export const MANAGEMENT_ENTITIES = [AccountEntity, ApiKeyEntity, WorkspaceEntity, WorkspaceKeyEntity, ...BROWSER_KEY_ENTITIES, ServiceTokenEntity, ...OPERATOR_ENTITY_SCHEMAS, ...REPLAY_ENTITIES, CategoryTranslationEntity, ...STATUS_WEBHOOK_ENTITIES, ...SUPPRESSION_ENTITIES, ...TEMPLATE_ENTITIES];
