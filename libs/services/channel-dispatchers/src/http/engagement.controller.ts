import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { EngagementAnswer, EngagementRoutes, PIXEL_GIF } from '../engagement/engagement-routes';

/**
 * The public routes of email engagement (`{HERALD_PUBLIC_URL}/v1/engagement/...`): no
 * Herald credential, the signed token in the path is the whole authority. Never cached:
 * each open and click must reach Herald.
 */
@Controller('v1/engagement')
export class EngagementController {
  constructor(private readonly routes: EngagementRoutes) {}

  @Get('open/:token')
  async open(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, await this.routes.open(token));
  }

  @Get('click/:token')
  async click(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, await this.routes.click(token));
  }
}

async function send(reply: FastifyReply, answer: EngagementAnswer): Promise<void> {
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  switch (answer.kind) {
    case 'pixel':
      await reply.status(200).type('image/gif').send(PIXEL_GIF);
      return;
    case 'redirect':
      await reply.status(302).header('location', answer.location).send();
      return;
    case 'refused':
      await reply.status(answer.status).send({ code: answer.status, error_code: 'not_found', message: answer.message });
  }
}
