export { ChannelDispatchersModule, channelDispatchers } from './channel-dispatchers.module';
