import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError } from '@herald/contracts';
import { RequiredRole } from '../auth/roles';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { AuditEntry, AuditFilter, AuditLogRepository } from './audit-log.repository';

export interface AuditEntryView {
  readonly id: string;
  /** Position in the log: `before` of the next page. */
  readonly seq: string;
  readonly occurred_at: Date;
  readonly actor: { readonly kind: string; readonly id: string; readonly name: string };
  readonly workspace: string | null;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  readonly resource_type: string;
  readonly resource_ids: Record<string, string>;
  readonly status_code: number;
  readonly before: unknown;
  readonly after: unknown;
}

export interface AuditPage {
  readonly meta: { readonly limit: number; readonly next_before: string | null };
  readonly results: readonly AuditEntryView[];
}

const MAX_LIMIT = 200;

/** `GET /v1/audit_log/`: the account's changes, newest first, paged by `before` (a seq). */
@Controller('v1/audit_log')
@UseGuards(ServiceTokenGuard)
export class AuditLogController {
  constructor(private readonly log: AuditLogRepository) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Query('limit') limit?: string,
    @Query('before') before?: string,
    @Query('workspace') workspace?: string,
    @Query('resource_type') resourceType?: string,
    @Query('actor_id') actorId?: string,
    @Query('method') method?: string,
    @Query('since') since?: string,
  ): Promise<AuditPage> {
    const errors: FieldError[] = [];
    const size = limit === undefined || limit === '' ? 50 : Number(limit);
    if (!Number.isInteger(size) || size < 1 || size > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
    if (before !== undefined && !/^\d{1,18}$/.test(before)) errors.push({ path: 'before', message: 'must be the seq of an entry' });
    if (actorId !== undefined && !/^[0-9a-f-]{36}$/i.test(actorId)) errors.push({ path: 'actor_id', message: 'must be a uuid' });
    if (method !== undefined && !['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase())) errors.push({ path: 'method', message: 'must be POST, PUT, PATCH or DELETE' });
    const sinceDate = since === undefined ? undefined : new Date(since);
    if (sinceDate !== undefined && Number.isNaN(sinceDate.getTime())) errors.push({ path: 'since', message: 'must be a date and time (ISO 8601)' });
    if (errors.length > 0) throw HeraldError.validation(errors);
    const filter: AuditFilter = { workspace, resourceType, actorId, method: method?.toUpperCase(), since: sinceDate, before };
    const entries = await this.log.list(accountOf(request), filter, size);
    return {
      meta: { limit: size, next_before: entries.length === size ? entries[entries.length - 1].seq : null },
      results: entries.map(viewOf),
    };
  }
}

function viewOf(entry: AuditEntry): AuditEntryView {
  return {
    id: entry.id,
    seq: String(entry.seq),
    occurred_at: entry.occurredAt,
    actor: { kind: entry.actorKind, id: entry.actorId, name: entry.actorName },
    workspace: entry.workspaceSlug,
    method: entry.method,
    route: entry.route,
    path: entry.path,
    resource_type: entry.resourceType,
    resource_ids: entry.resourceIds,
    status_code: entry.statusCode,
    before: entry.before,
    after: entry.after,
  };
}
