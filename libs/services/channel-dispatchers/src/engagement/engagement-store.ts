import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryRequested } from '@herald/contracts';

/** A delivery an open pixel or tracked link names, as the ledger holds it. */
export interface TrackedDeliveryRow {
  readonly deliveryId: string;
  readonly workspaceId: string;
  readonly messageKey: string;
  readonly command: DeliveryRequested;
  readonly status: string;
  readonly vendor: string | null;
  readonly vendorMessageId: string | null;
}

/**
 * Reads the delivery a tracking token names (`dispatch.deliveries`, by its key). What an
 * engagement leads to is written by VendorCallbackStore.record, as a vendor's open or
 * click is: each status once per delivery, with its outcome, in one transaction.
 */
@Injectable()
export class EngagementStore {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  async delivery(deliveryId: string): Promise<TrackedDeliveryRow | undefined> {
    const [row] = (await this.db.query(
      `SELECT delivery_id, workspace_id, message_key, command, status, vendor, vendor_message_id FROM dispatch.deliveries WHERE delivery_id = $1`,
      [deliveryId],
    )) as Array<{ delivery_id: string; workspace_id: string; message_key: string; command: DeliveryRequested; status: string; vendor: string | null; vendor_message_id: string | null }>;
    if (!row) return undefined;
    return {
      deliveryId: row.delivery_id,
      workspaceId: row.workspace_id,
      messageKey: row.message_key,
      command: row.command,
      status: row.status,
      vendor: row.vendor,
      vendorMessageId: row.vendor_message_id,
    };
  }
}
