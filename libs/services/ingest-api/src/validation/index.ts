export { validateTrigger, MAX_RECIPIENTS } from './trigger';
export { validateEvent, MAX_EVENT_NAME_LENGTH } from './event';
export { validateBulk, MAX_BULK_RECORDS } from './bulk';
export type { BulkValidation } from './bulk';
export { MAX_INLINE_ATTACHMENT_BYTES } from './attachments';
export { MAX_IDEMPOTENCY_KEY_LENGTH } from './shared-fields';
