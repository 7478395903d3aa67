export { ManagementApiModule, managementApi } from './management-api.module';
