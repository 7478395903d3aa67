import { Controller, Headers, Options, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { BrowserAuthenticator } from '@herald/runtime';

const INBOX_CORS_METHODS = 'GET, PATCH, OPTIONS';

/** CORS preflights of the inbox, answered for the origins public keys allow (BrowserAuthenticator.answerPreflight). */
@Controller('v1/user/:distinct_id/inbox')
export class InboxPreflightController {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  @Options()
  async list(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, INBOX_CORS_METHODS);
  }

  @Options(':id')
  async item(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, INBOX_CORS_METHODS);
  }
}
