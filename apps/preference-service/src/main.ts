import { runService } from '@herald/runtime';
import { preferenceService } from '@herald/preference-service';

// Distributed mode: this service alone, against HERALD_KAFKA_BROKERS and HERALD_DATABASE_URL.
void runService(preferenceService);
