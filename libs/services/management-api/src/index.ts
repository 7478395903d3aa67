export { ManagementApiModule, managementApi } from './management-api.module';
export { ConsoleSettings } from './console';
