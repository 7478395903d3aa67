import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Registry } from 'prom-client';
import { METRICS_REGISTRY } from './tokens';

@Controller('metrics')
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get()
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    await reply.header('content-type', this.registry.contentType).send(await this.registry.metrics());
  }
}
