import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthRegistry } from '../health/health-registry';
import { HEALTH_REGISTRY } from './tokens';

@Controller('health')
export class HealthController {
  constructor(@Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.readiness();
    await reply.status(report.ready ? 200 : 503).send(report);
  }
}
