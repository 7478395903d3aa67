import { runService } from '@herald/runtime';
import { workflowEngine } from '@herald/workflow-engine';

// Distributed mode: this service alone, against HERALD_KAFKA_BROKERS and HERALD_DATABASE_URL.
void runService(workflowEngine);
