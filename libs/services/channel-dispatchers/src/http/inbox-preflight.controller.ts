import { Controller, Headers, Options, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { BrowserKeyReadModel } from '../read-models/browser-key-read-model';
import { preflightHeadersFor } from './inbox-cors';

/**
 * CORS preflights of the inbox. A preflight carries no credentials, so it is allowed
 * for an origin some public key allows (and for no other: no allow-origin header, and
 * the browser stops there); the request itself is then held to its own key's origins.
 */
@Controller('v1/user/:distinct_id/inbox')
export class InboxPreflightController {
  constructor(private readonly browserKeys: BrowserKeyReadModel) {}

  @Options()
  async list(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(origin, reply);
  }

  @Options(':id')
  async item(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(origin, reply);
  }

  private async answer(origin: string | undefined, reply: FastifyReply): Promise<void> {
    const allowed = origin !== undefined && origin.length <= 512 && (await this.browserKeys.isAllowedByAnyKey(origin));
    await reply.status(204).headers(allowed ? preflightHeadersFor(origin) : { vary: 'Origin' }).send();
  }
}
