import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { hashToken } from '@herald/runtime';

export interface AuthenticatedAccount {
  readonly accountId: string;
}

export type ManagementRequest = FastifyRequest & { account?: AuthenticatedAccount };

/** `Authorization: ServiceToken <token>`; the token selects the account and nothing else is reachable. */
@Injectable()
export class ServiceTokenGuard implements CanActivate {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ManagementRequest>();
    const match = /^ServiceToken\s+(\S+)$/.exec(request.headers.authorization ?? '');
    if (!match) throw new HeraldError('authentication_failed', 'missing or malformed ServiceToken authorization');
    const rows = (await this.db.query(
      `SELECT account_id FROM management.service_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
      [hashToken(match[1])],
    )) as Array<{ account_id: string }>;
    if (rows.length === 0) throw new HeraldError('authentication_failed', 'invalid service token');
    request.account = { accountId: rows[0].account_id };
    return true;
  }
}

/** The account a guarded request authenticated as. */
export function accountOf(request: ManagementRequest): string {
  if (!request.account) throw new HeraldError('authentication_failed', 'not authenticated');
  return request.account.accountId;
}
