import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { ManagementRequest, ServiceTokenGuard } from '../auth/service-token.guard';

interface WorkspaceRow {
  uid: string;
  slug: string;
  name: string;
  description: string;
  mode: string;
  data_center: Record<string, unknown>;
}

/** Interface 2.10 / 4.6: the workspaces of the token's account, offset-paginated. */
@Controller('v1/workspace')
@UseGuards(ServiceTokenGuard)
export class WorkspacesController {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Query('limit') limitParam?: string,
    @Query('offset') offsetParam?: string,
  ): Promise<{ meta: { count: number; limit: number; offset: number }; results: unknown[] }> {
    const limit = parseBoundedInteger('limit', limitParam, 20, 1, 1000);
    const offset = parseBoundedInteger('offset', offsetParam, 0, 0, Number.MAX_SAFE_INTEGER);
    const accountId = request.account?.accountId;
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.workspaces WHERE account_id = $1`,
      [accountId],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT id AS uid, slug, name, description, mode, data_center
         FROM management.workspaces WHERE account_id = $1 ORDER BY created_at, slug LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    )) as WorkspaceRow[];
    return {
      meta: { count, limit, offset },
      results: rows.map((row) => ({ ...row, is_expired: false, has_limit_reached: false })),
    };
  }
}

function parseBoundedInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw HeraldError.validation([{ path: name, message: `must be an integer from ${min} to ${max}` }]);
  }
  return value;
}
