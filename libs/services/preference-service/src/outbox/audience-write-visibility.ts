import { AsyncLocalStorage } from 'node:async_hooks';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import { AudienceChanged } from '@herald/contracts';
import { AudienceVisibility } from '@herald/runtime';

/**
 * The announcements a request wrote to the outbox that the engine's read model applies
 * (profiles, preferences, tenants, object subscriptions; lists are read by no run), kept
 * per request in async-local storage: the stores stay as they are, and what is
 * announced outside a request (the bus consumers) records nothing.
 */
const announcedInRequest = new AsyncLocalStorage<string[]>();

const READ_BY_THE_ENGINE: ReadonlySet<AudienceChanged['kind']> = new Set(['profile', 'preferences', 'tenant', 'object_subscriptions']);

export function recordAnnounced(messageId: string, change: AudienceChanged): void {
  if (READ_BY_THE_ENGINE.has(change.kind)) announcedInRequest.getStore()?.push(messageId);
}

/**
 * Every request that changed what a run reads answers once the engine holds the change
 * (AudienceVisibility), so a trigger sent after the answer sees it. After the request's
 * transaction committed; the relay publishes the announcement meanwhile.
 */
@Injectable()
export class AudienceWriteVisibilityInterceptor implements NestInterceptor {
  constructor(private readonly visibility: AudienceVisibility) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(
      (async () => {
        const announced: string[] = [];
        const result = await announcedInRequest.run(announced, () => lastValueFrom(next.handle(), { defaultValue: undefined }));
        const request = context.switchToHttp().getRequest<{ method?: string; url?: string } | undefined>();
        await this.visibility.waitUntilApplied(announced, `${request?.method ?? ''} ${request?.url?.split('?')[0] ?? ''}`.trim());
        return result;
      })(),
    );
  }
}
