import { channelDispatchers } from '@herald/channel-dispatchers';
import { ingestApi } from '@herald/ingest-api';
import { managementApi } from '@herald/management-api';
import { preferenceService } from '@herald/preference-service';
import { ServiceDefinition, runService } from '@herald/runtime';
import { workflowEngine } from '@herald/workflow-engine';

// One image for every service: HERALD_SERVICE picks which one this container runs
// (the same as `node -r ./tools/register.js apps/<service>/src/main.ts`).
const services: Record<string, ServiceDefinition> = Object.fromEntries(
  [ingestApi, workflowEngine, preferenceService, managementApi, channelDispatchers].map((s) => [s.name, s]),
);

const selected = services[process.env.HERALD_SERVICE ?? ''];
if (!selected) {
  process.stderr.write(`HERALD_SERVICE must be one of ${Object.keys(services).join(', ')}\n`);
  process.exit(2);
}
void runService(selected);
