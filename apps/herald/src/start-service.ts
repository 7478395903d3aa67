import type { ServiceDefinition, ServiceName } from '@herald/runtime';

// One image for every service: HERALD_SERVICE picks which one this container runs
// (the same as `node -r ./tools/register.js apps/<service>/src/main.ts`). Only the
// chosen service's code is loaded: loading all five cost a pod seconds of its start.
const services: Record<ServiceName, () => Promise<ServiceDefinition>> = {
  'ingest-api': async () => (await import('@herald/ingest-api')).ingestApi,
  'workflow-engine': async () => (await import('@herald/workflow-engine')).workflowEngine,
  'preference-service': async () => (await import('@herald/preference-service')).preferenceService,
  'management-api': async () => (await import('@herald/management-api')).managementApi,
  'channel-dispatchers': async () => (await import('@herald/channel-dispatchers')).channelDispatchers,
};

async function main(): Promise<void> {
  const name = process.env.HERALD_SERVICE ?? '';
  if (!Object.hasOwn(services, name)) {
    process.stderr.write(`HERALD_SERVICE must be one of ${Object.keys(services).join(', ')}\n`);
    process.exit(2);
  }
  const [service, { runService }] = await Promise.all([services[name as ServiceName](), import('@herald/runtime')]);
  await runService(service);
}

void main();
