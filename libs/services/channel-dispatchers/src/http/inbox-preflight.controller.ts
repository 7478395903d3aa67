import { Controller, Headers, Options, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { BrowserAuthenticator, USER_TOKEN_HEADER } from '@herald/runtime';

const INBOX_CORS_METHODS = 'GET, PATCH, OPTIONS';

/** CORS preflights of the inbox, answered for the origins public keys allow (BrowserAuthenticator.answerPreflight). */
@Controller('v1/user/:distinct_id/inbox')
export class InboxPreflightController {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  @Options()
  async list(@Headers('origin') origin: string | undefined, @Headers('access-control-request-headers') requested: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    // The operator console reads a user's inbox with an API key, from any origin (no user token, no cookie): see OperatorCors.
    if (!String(requested ?? '').toLowerCase().includes(USER_TOKEN_HEADER)) {
      await reply.code(204).headers({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS', 'access-control-allow-headers': 'authorization', 'access-control-max-age': '600' }).send();
      return;
    }
    await this.browsers.answerPreflight(origin, reply, INBOX_CORS_METHODS);
  }

  @Options(':id')
  async item(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, INBOX_CORS_METHODS);
  }
}
