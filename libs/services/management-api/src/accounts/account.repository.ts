import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';

/** An account (the tenant of Herald's management API) as stored. */
export interface Account {
  id: string;
  name: string;
  createdAt: Date;
}

/** `management.accounts` (created by the migrations, never by TypeORM). */
export const AccountEntity = new EntitySchema<Account>({
  name: 'Account',
  schema: 'management',
  tableName: 'accounts',
  columns: {
    id: { type: 'uuid', primary: true },
    name: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
  },
});

/** The accounts: made once, on the first start (BootstrapAccount); read by the first start and the service-token CLI. */
@Injectable()
export class AccountRepository {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  /**
   * Runs `work` in one transaction when the database has no account yet, and answers what it
   * answered; undefined (and `work` not run) when there is one. Replicas starting together
   * serialise on a transaction-scoped advisory lock, so only the first of them creates one.
   */
  async whileNoAccount<T>(work: (tx: EntityManager) => Promise<T>): Promise<T | undefined> {
    return this.db.transaction(async (tx) => {
      // Hand-written: an advisory lock, which no entity maps.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('herald:bootstrap-account'))`);
      if ((await this.accounts(tx).count()) > 0) return undefined;
      return work(tx);
    });
  }

  /** A new account's id; in `tx` when given. */
  async create(name: string, tx: EntityManager = this.db.manager): Promise<string> {
    const id = randomUUID();
    await this.accounts(tx).insert({ id, name });
    return id;
  }

  /** The first account made (the first start's), or null. */
  async oldest(): Promise<string | null> {
    const [first] = await this.accounts().find({ select: { id: true }, order: { createdAt: 'ASC', id: 'ASC' }, take: 1 });
    return first?.id ?? null;
  }

  /** Up to `limit` account ids, in id order (two tell one account from several). */
  async firstIds(limit: number): Promise<string[]> {
    const rows = await this.accounts().find({ select: { id: true }, order: { id: 'ASC' }, take: limit });
    return rows.map((row) => row.id);
  }

  private accounts(manager: EntityManager = this.db.manager): Repository<Account> {
    return manager.getRepository(AccountEntity);
  }
}
