import { DynamicModule, Module } from '@nestjs/common';
import { ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { DISPATCH_MIGRATIONS } from './persistence/migrations';

/** Delivery commands to vendors: rendering, retries, fallback, delivery status, the inbox. */
@Module({})
export class ChannelDispatchersModule {
  static register(): DynamicModule {
    return {
      module: ChannelDispatchersModule,
      imports: [ServiceDatabaseModule.forService({ service: 'channel-dispatchers', schema: 'dispatch', migrations: DISPATCH_MIGRATIONS })],
    };
  }
}

export const channelDispatchers: ServiceDefinition = {
  name: 'channel-dispatchers',
  api: 'internal',
  module: () => ChannelDispatchersModule.register(),
};
