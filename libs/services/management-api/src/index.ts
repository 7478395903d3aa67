export { ManagementApiModule, managementApi } from './management-api.module';
export { ConsoleSettings } from './console';
export { VendorTestClient } from './vendors';
// For tests and benches of other packages: a status webhook receiver verifying with `standardwebhooks`.
export { ReceivedWebhook, WebhookReceiver } from './status-webhooks/testing/webhook-receiver';
// For the service-token CLI (apps/herald), which opens management's tables outside the Nest app.
export { MANAGEMENT_ENTITIES } from './persistence/entities';
export { AccountRepository } from './accounts/account.repository';
export { ServiceTokenRepository } from './auth/service-token.repository';
export { WorkspaceRepository } from './workspaces/workspace.repository';
