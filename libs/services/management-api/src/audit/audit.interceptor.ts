import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Observable, from, lastValueFrom } from 'rxjs';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { ROUTE_ACCESS, RouteAccess } from '../auth/roles';
import { CONSOLE_HEADER } from '../auth/console-session-cookie';
import { ManagementRequest } from '../auth/service-token.guard';
import { AuditLogRepository } from './audit-log.repository';
import { auditedResource, redacted } from './audited-change';

/** What a handler knows better than the generic rule: the state before and after its change. */
export interface AuditNote {
  readonly before?: unknown;
  readonly after?: unknown;
  /** Ids the route's parameters do not name (a created operator's id). */
  readonly resourceIds?: Record<string, string>;
}

type AuditedRequest = ManagementRequest & { auditNote?: AuditNote };

/** Tells the audit interceptor the change's before and after (operators, whose answers are not their whole state). */
export function noteAuditChange(request: ManagementRequest, note: AuditNote): void {
  (request as AuditedRequest).auditNote = note;
}

/**
 * Records every change made through the management API: each successful call of a route
 * that needs the editor or owner role (GETs and viewers' POSTs such as validate and
 * preview change nothing). Before the handler runs, the resource's current state is read
 * through its own GET route (with the caller's credentials, so a secret the caller cannot
 * see is not recorded either); after, the answer is the new state. Secrets are redacted
 * from both. The entry is written after the change commits: if that write fails the change
 * stands and the failure is logged as an error.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly log: AuditLogRepository,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const access = this.reflector.get<RouteAccess | undefined>(ROUTE_ACCESS, context.getHandler());
    const request = context.switchToHttp().getRequest<AuditedRequest>();
    if (request.method === 'GET' || (access !== 'editor' && access !== 'owner')) return next.handle();
    return from(this.audited(context, request, next));
  }

  private async audited(context: ExecutionContext, request: AuditedRequest, next: CallHandler): Promise<unknown> {
    const route = request.routeOptions.url ?? request.url;
    const params = (request.params ?? {}) as Record<string, string>;
    const resource = auditedResource(route, params);
    const before = resource.readPath === undefined ? undefined : await this.read(request, resource.readPath);
    const answer = await lastValueFrom(next.handle(), { defaultValue: undefined });
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const note = request.auditNote;
    const account = request.account;
    if (account) {
      try {
        await this.log.append({
          accountId: account.accountId,
          workspaceSlug: params.workspace ?? null,
          actor: account.actor,
          method: request.method,
          route,
          path: request.url.split('?')[0],
          resourceType: resource.type,
          resourceIds: { ...resource.ids, ...note?.resourceIds },
          statusCode: reply.statusCode,
          before: redacted(note && 'before' in note ? note.before : before),
          after: redacted(note && 'after' in note ? note.after : answer),
        });
      } catch (error) {
        this.logger.error('could not record a change in the audit log', {
          component: 'audit-log',
          route,
          actor: account.actor.name,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return answer;
  }

  /** The resource as its GET route answers the caller now; undefined when there is none (about to be created). */
  private async read(request: AuditedRequest, path: string): Promise<unknown> {
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'cookie', CONSOLE_HEADER]) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const server = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const response = await server.inject({ method: 'GET', url: path, headers });
    if (response.statusCode !== 200) return undefined;
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      return undefined;
    }
  }
}
