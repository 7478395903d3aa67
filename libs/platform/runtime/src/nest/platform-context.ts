import { BusBacklog, MessageBus } from '@herald/bus';
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
  /** The in-process bus's backlog, which the embedded ingest API bounds; absent on Kafka. */
  readonly backlog?: BusBacklog;
  readonly metrics: Registry;
  readonly health: HealthRegistry;
  readonly databaseUrl: string;
}
