import { MigrationClass } from '@herald/database';
import { outboxMigrations } from '@herald/event-store';
import { BROWSER_KEY_MIGRATIONS } from '../../browser-keys';
import { EVENT_MIGRATIONS } from '../../events';
import { OPERATOR_MIGRATIONS } from '../../operators';
import { REPLAY_MIGRATIONS } from '../../replays';
import { CategoryTranslationVersions1763701210000, CreateCategoryTranslations1763701200000 } from '../../preference-categories';
import { SCHEMA_MIGRATIONS } from '../../schemas';
import { STATUS_WEBHOOK_MIGRATIONS } from '../../status-webhooks';
import { SUPPRESSION_MIGRATIONS } from '../../suppressions';
import { TEMPLATE_MIGRATIONS } from '../../templates';
import { TRANSLATION_MIGRATIONS } from '../../translations';
import { VENDOR_MIGRATIONS } from '../../vendors';
import { CreateAccounts1763700000000 } from './1763700000000-create-accounts';
import { ApiKeyExpiry1763701400000 } from './1763701400000-api-key-expiry';
import { ReadOnlyApiKeys1763701900000 } from './1763701900000-read-only-api-keys';
import { CreatePreferenceCategories1763700600000 } from './1763700600000-create-preference-categories';
import { CreateWorkflows1763700700000 } from './1763700700000-create-workflows';
import { DeletedWorkflows1763700710000 } from './1763700710000-deleted-workflows';
import { WorkspaceModeSandbox1763700010000 } from './1763700010000-workspace-mode-sandbox';

/**
 * Oldest first. The outbox carries management's changes to the other services.
 * Timestamps reserved per area: templates 17637004…, vendors 17637005…,
 * preference categories 17637006…, workflows 17637007…, browser keys 17637008…, schemas 17637009…,
 * translations 17637010…, preference-category translations 17637012…, API key expiry 17637014…, status webhooks 17637015…, operators and audit 17637017… (password reset links 17637020…), suppressions 176370165…, template versions 17637018…, read-only API keys 17637019….
 */
export const MANAGEMENT_MIGRATIONS: MigrationClass[] = [
  CreateAccounts1763700000000,
  WorkspaceModeSandbox1763700010000,
  ...outboxMigrations('management'),
  ...TEMPLATE_MIGRATIONS,
  ...VENDOR_MIGRATIONS,
  CreatePreferenceCategories1763700600000,
  CreateWorkflows1763700700000,
  DeletedWorkflows1763700710000,
  ...BROWSER_KEY_MIGRATIONS,
  ...SCHEMA_MIGRATIONS,
  ...TRANSLATION_MIGRATIONS,
  ...EVENT_MIGRATIONS,
  CreateCategoryTranslations1763701200000,
  CategoryTranslationVersions1763701210000,
  ...REPLAY_MIGRATIONS,
  ApiKeyExpiry1763701400000,
  ...STATUS_WEBHOOK_MIGRATIONS,
  ...OPERATOR_MIGRATIONS,
  ...SUPPRESSION_MIGRATIONS,
  ReadOnlyApiKeys1763701900000,
];
