import { runService } from '@herald/runtime';
import { channelDispatchers } from '@herald/channel-dispatchers';

// Distributed mode: this service alone, against HERALD_KAFKA_BROKERS and HERALD_DATABASE_URL.
void runService(channelDispatchers);
