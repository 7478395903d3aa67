import { MessageBus } from '@herald/bus';
import { Registry } from 'prom-client';
import { HeraldConfig } from '../config/herald-config';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';

/**
 * The process-wide parts every service module runs on. Built once per process by
 * a launcher (one service in distributed mode, all five in the embedded mode) and
 * handed to each Nest application through PlatformModule.
 */
export interface PlatformContext {
  readonly config: HeraldConfig;
  readonly logger: HeraldLogger;
  readonly bus: MessageBus;
  readonly metrics: Registry;
  readonly health: HealthRegistry;
  readonly databaseUrl: string;
}
