/**
 * The SecretBox under HERALD_SECRETS_KEY: it opens what management-api sealed (vendor
 * credentials, workspace secrets, a vendor test's request) with the same key.
 */
export const DISPATCH_SECRET_BOX = Symbol('DISPATCH_SECRET_BOX');
