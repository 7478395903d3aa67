import { DynamicModule, Global, Module } from '@nestjs/common';
import { AuthFailureLimiter } from '../security/auth-failure-limiter';
import { ConsumerRegistry } from './consumer-registry';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { PlatformContext } from './platform-context';
import {
  CLOCK,
  DATABASE_URL,
  HEALTH_REGISTRY,
  HERALD_CONFIG,
  HERALD_LOGGER,
  MESSAGE_BUS,
  BUS_BACKLOG,
  METRICS_REGISTRY,
  systemClock,
} from './tokens';

/** Global providers of the platform ports, plus /health and /metrics on every HTTP app. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(context: PlatformContext): DynamicModule {
    const providers = [
      { provide: HERALD_CONFIG, useValue: context.config },
      { provide: HERALD_LOGGER, useValue: context.logger },
      { provide: MESSAGE_BUS, useValue: context.bus },
      { provide: BUS_BACKLOG, useValue: context.backlog ?? null },
      { provide: METRICS_REGISTRY, useValue: context.metrics },
      { provide: HEALTH_REGISTRY, useValue: context.health },
      { provide: DATABASE_URL, useValue: context.databaseUrl },
      { provide: CLOCK, useValue: systemClock },
      // One per HTTP application: every guard of its services counts into the same limits.
      { provide: AuthFailureLimiter, useValue: new AuthFailureLimiter(context.config.authFailures, systemClock) },
      ConsumerRegistry,
    ];
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController],
      providers,
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
