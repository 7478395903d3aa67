import { EntitySchema } from 'typeorm';
import { DeliveryRequested } from '@herald/contracts';

/** A delivery in `dispatch.deliveries`, the delivery ledger: one row per delivery_id, claimed before any vendor is called. */
export interface LedgeredDelivery {
  deliveryId: string;
  workspaceId: string;
  channel: string;
  /** The command's Kafka key (`workspace:recipient`): outcomes go out with the same key. */
  messageKey: string;
  command: DeliveryRequested;
  /** queued, sending, retry_scheduled, sent or failed. */
  status: string;
  attempts: number;
  claimedAt: Date;
  nextAttemptAt: Date | null;
  /** Indexes into command.destination.identities already sent: a retry sends only the rest. */
  sentIdentities: number[];
  vendor: string | null;
  vendorMessageId: string | null;
  lastError: string | null;
  updatedAt: Date;
  owner: string | null;
  leaseExpiresAt: Date | null;
  /** The vendor callback statuses already recorded (each once per delivery). */
  callbackStatuses: string[];
}

/**
 * `dispatch.deliveries` (created by the migrations, never by TypeORM). The hot path
 * (DeliveryRepository) claims and finishes deliveries with its own SQL; this maps the table
 * for its cold paths and for the repositories that read it and record vendor callbacks.
 */
export const LedgeredDeliveryEntity = new EntitySchema<LedgeredDelivery>({
  name: 'LedgeredDelivery',
  schema: 'dispatch',
  tableName: 'deliveries',
  columns: {
    deliveryId: { name: 'delivery_id', type: 'text', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    channel: { type: 'text' },
    messageKey: { name: 'message_key', type: 'text' },
    command: { type: 'jsonb' },
    status: { type: 'text' },
    attempts: { type: 'integer' },
    claimedAt: { name: 'claimed_at', type: 'timestamptz' },
    nextAttemptAt: { name: 'next_attempt_at', type: 'timestamptz', nullable: true },
    sentIdentities: { name: 'sent_identities', type: 'jsonb' },
    vendor: { type: 'text', nullable: true },
    vendorMessageId: { name: 'vendor_message_id', type: 'text', nullable: true },
    lastError: { name: 'last_error', type: 'text', nullable: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    owner: { type: 'text', nullable: true },
    leaseExpiresAt: { name: 'lease_expires_at', type: 'timestamptz', nullable: true },
    callbackStatuses: { name: 'callback_statuses', type: 'text', array: true },
  },
});
