import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** What an engagement report needs of a message of the log to become its outcome. */
export interface WebpushMessage {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly message_id: string;
  readonly status: string;
}

/** Reads of the message log (`engine.messages`) for web push engagement reports. */
@Injectable()
export class WebpushMessageQueries {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  /** The workspace's web push message `deliveryId`, or null (another channel's, another workspace's, or none). */
  async find(workspaceId: string, deliveryId: string): Promise<WebpushMessage | null> {
    const rows = (await this.db.query(
      `SELECT delivery_id, run_id, message_id, status FROM engine.messages WHERE workspace_id = $1 AND delivery_id = $2 AND channel = 'webpush'`,
      [workspaceId, deliveryId],
    )) as WebpushMessage[];
    return rows[0] ?? null;
  }
}
