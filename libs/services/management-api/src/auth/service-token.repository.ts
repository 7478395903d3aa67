import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, IsNull, Repository } from 'typeorm';
import { returningRows } from '@herald/database';

/** An operator's service token as stored: its hash only, never the token. */
export interface ServiceToken {
  id: string;
  accountId: string;
  name: string;
  tokenHash: Buffer;
  /** The token's first characters and a mask, shown in lists. */
  tokenHint: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** `management.service_tokens` (created by the migrations, never by TypeORM): each column typed once, here. */
export const ServiceTokenEntity = new EntitySchema<ServiceToken>({
  name: 'ServiceToken',
  schema: 'management',
  tableName: 'service_tokens',
  columns: {
    id: { type: 'uuid', primary: true },
    accountId: { name: 'account_id', type: 'uuid' },
    name: { type: 'text' },
    tokenHash: { name: 'token_hash', type: 'bytea' },
    tokenHint: { name: 'token_hint', type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    revokedAt: { name: 'revoked_at', type: 'timestamptz', nullable: true },
  },
});

/** The service tokens operators authenticate with (hashes only). */
@Injectable()
export class ServiceTokenRepository {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  /** The account a live (unrevoked) token with this hash belongs to, or null. */
  async accountOfLiveToken(tokenHash: Buffer): Promise<string | null> {
    return (await this.liveToken(tokenHash))?.accountId ?? null;
  }

  /** The live (unrevoked) token with this hash (what the audit log names it by), or null. */
  async liveToken(tokenHash: Buffer): Promise<Pick<ServiceToken, 'id' | 'accountId' | 'name'> | null> {
    return this.db.manager
      .getRepository(ServiceTokenEntity)
      .findOne({ select: { id: true, accountId: true, name: true }, where: { tokenHash, revokedAt: IsNull() } });
  }

  /** Stores a new live token of the account (its hash and hint) and answers its id; in `tx` when given (the first start's). */
  async create(token: Pick<ServiceToken, 'accountId' | 'name' | 'tokenHash' | 'tokenHint'>, tx: EntityManager = this.db.manager): Promise<string> {
    const id = randomUUID();
    await this.tokens(tx).insert({ id, ...token });
    return id;
  }

  /** Whether the table exists: not in a database no management-api has migrated yet (the service-token CLI asks first). */
  async tableExists(): Promise<boolean> {
    // Hand-written: information_schema, which no entity maps.
    const rows = returningRows<{ found: number }>(
      await this.db.query(`SELECT 1 AS found FROM information_schema.tables WHERE table_schema = 'management' AND table_name = 'service_tokens'`),
    );
    return rows.length > 0;
  }

  private tokens(manager: EntityManager = this.db.manager): Repository<ServiceToken> {
    return manager.getRepository(ServiceTokenEntity);
  }
}
