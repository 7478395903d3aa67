import { Static, Type } from '@sinclair/typebox';

/**
 * "Send a test" of a vendor configuration: management-api asks channel-dispatchers, which
 * hold the vendor adapters, over an internal HTTP route (docs/architecture.md, Vendor
 * tests). The request is sealed with HERALD_SECRETS_KEY (AES-256-GCM, associated data
 * VENDOR_TEST_SEAL): only a holder of the key can make one, and nothing of it is readable
 * on the way. A dispatcher refuses a request older than VENDOR_TEST_MAX_AGE_MS.
 */
export const VENDOR_TEST_PATH = 'internal/vendor-test';
export const VENDOR_TEST_SEAL = 'herald:vendor-test:v1';
export const VENDOR_TEST_MAX_AGE_MS = 60_000;

/** What is sealed: the configuration as management stores it (credentials still sealed with `vendor:<id>`) and the destination. */
export interface VendorTestRequest {
  /** Epoch milliseconds when management sealed it. */
  readonly issued_at: number;
  readonly workspace_id: string;
  readonly vendor: {
    readonly id: string;
    readonly channel: string;
    readonly vendor: string;
    readonly version: number;
    readonly base_url: string | null;
    readonly settings: Record<string, unknown>;
    /** base64 of the SecretBox blob, associated data `vendor:<id>`. */
    readonly credentials_sealed: string;
  };
  /** An address (email, phone), a device token, a distinct_id (inbox), or an identity object as profiles hold them. */
  readonly to: unknown;
}

/** The body of the internal request: the sealed VendorTestRequest, base64 (what management-api sends, what a dispatcher parses). */
export const SealedVendorTestSchema = Type.Object({ sealed: Type.String({ description: 'The VendorTestRequest sealed with HERALD_SECRETS_KEY (associated data VENDOR_TEST_SEAL), base64' }) });
export type SealedVendorTest = Static<typeof SealedVendorTestSchema>;

/** What the vendor answered to the one test message, as the dispatcher saw it. */
export interface VendorTestAnswer {
  readonly ok: boolean;
  readonly channel: string;
  readonly vendor: string;
  /** The vendor's status: an HTTP status, or an SMTP reply code; null when no answer arrived. */
  readonly status: number | null;
  /** The start of the vendor's answer (HTTP body, SMTP reply), at most 1,000 characters. */
  readonly body: string | null;
  /** Why the send failed, as a delivery would record it; null when it was sent. */
  readonly error: string | null;
  /** Whether a delivery would have retried this failure. */
  readonly retryable: boolean | null;
  readonly vendor_message_id: string | null;
  readonly duration_ms: number;
}
