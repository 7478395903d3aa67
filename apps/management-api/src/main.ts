import { runService } from '@herald/runtime';
import { managementApi } from '@herald/management-api';

// Distributed mode: this service alone, against HERALD_KAFKA_BROKERS and HERALD_DATABASE_URL.
void runService(managementApi);
