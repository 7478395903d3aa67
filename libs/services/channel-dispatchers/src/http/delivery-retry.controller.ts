import { CanActivate, Controller, ExecutionContext, HttpCode, Injectable, Options, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { DeliveryClaims } from '../dispatch/delivery-claims';
import { CurrentCaller, InboxAuthGuard, InboxCaller } from './inbox-auth.guard';

/**
 * The operator console (another origin) calls the retry with its API key. Any origin may,
 * and none with credentials: the route takes `Authorization: Bearer` only, never a
 * cookie, so a page can do nothing here without the workspace's key. Set before the
 * authentication guard, so a 401 is readable by the page too.
 */
@Injectable()
class OperatorCors implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    context.switchToHttp().getResponse<FastifyReply>().header('access-control-allow-origin', '*');
    return true;
  }
}

/**
 * `POST {base_url}/v1/message/{message_id}/retry/` (Herald's own): a delivery that failed
 * for good is attempted again, e.g. once its vendor's credentials are fixed. The ledger
 * schedules it due now and the retry poller sends it (rendered and routed afresh), then
 * reports the outcome to the run like any attempt: the message log shows it sent, or
 * failed again. Only with an API key (a browser's public key is refused).
 */
@Controller('v1/message/:message_id/retry')
export class DeliveryRetryController {
  constructor(private readonly ledger: DeliveryClaims) {}

  @Post()
  @HttpCode(202)
  @UseGuards(OperatorCors, InboxAuthGuard)
  async retry(@CurrentCaller() caller: InboxCaller, @Param('message_id') messageId: string): Promise<{ message_id: string; status: 'retry_scheduled' }> {
    if (caller.userToken !== undefined) throw new HeraldError('permission_denied', 'retrying a delivery takes an API key');
    const found = await this.ledger.retryFailed(caller.workspace.id, messageId);
    if (found === 'not_found') {
      throw HeraldError.notFound(`no delivery '${messageId}' was attempted in this workspace (a message skipped or not sent yet has nothing to retry)`);
    }
    if (found !== 'scheduled') throw new HeraldError('conflict', `delivery '${messageId}' is ${found.status}, not failed: only a failed delivery is retried`);
    return { message_id: messageId, status: 'retry_scheduled' };
  }

  @Options()
  preflight(@Res() reply: FastifyReply): void {
    void reply
      .code(204)
      .headers({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST, OPTIONS', 'access-control-allow-headers': 'authorization', 'access-control-max-age': '600' })
      .send();
  }
}
