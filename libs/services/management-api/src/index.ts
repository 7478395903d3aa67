export { ManagementApiModule, managementApi } from './management-api.module';
export { ConsoleSettings } from './console';
export { VendorTestClient } from './vendors';
// For tests and benches of other packages: a status webhook receiver verifying with `standardwebhooks`.
export { ReceivedWebhook, WebhookReceiver } from './status-webhooks/testing/webhook-receiver';
