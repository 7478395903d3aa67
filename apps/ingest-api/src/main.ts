import { runService } from '@herald/runtime';
import { ingestApi } from '@herald/ingest-api';

// Distributed mode: this service alone, against HERALD_KAFKA_BROKERS and HERALD_DATABASE_URL.
void runService(ingestApi);
