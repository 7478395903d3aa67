import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { AuditLogController } from '../audit/audit-log.controller';
import { AuditEntryEntity, AuditLogRepository } from '../audit/audit-log.repository';
import { ConsoleApiKeysController } from './console-api-keys.controller';
import { CreateOperators1763701700000 } from './migrations/1763701700000-create-operators';
import { PasswordResetLinks1763702000000 } from './migrations/1763702000000-password-reset-links';
import { OidcSignIn } from './oidc/oidc-sign-in';
import { OperatorSessionController } from './operator-session.controller';
import { OperatorSessions } from './operator-sessions';
import { OPERATOR_ENTITIES, OperatorRepository } from './operator.repository';
import { OperatorsController } from './operators.controller';

/** Operators, their sessions and invitations, SSO, and the audit log of changes. */
export const OPERATOR_CONTROLLERS: Type[] = [OperatorsController, OperatorSessionController, ConsoleApiKeysController, AuditLogController];
/** The audit interceptor is registered by the module itself (APP_INTERCEPTOR). */
export const OPERATOR_PROVIDERS: Provider[] = [OperatorRepository, OperatorSessions, OidcSignIn, AuditLogRepository];
export const OPERATOR_ENTITY_SCHEMAS = [...OPERATOR_ENTITIES, AuditEntryEntity];
export const OPERATOR_MIGRATIONS: MigrationClass[] = [CreateOperators1763701700000, PasswordResetLinks1763702000000];
export { AuditInterceptor } from '../audit/audit.interceptor';
export { OperatorRepository } from './operator.repository';
