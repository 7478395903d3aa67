export { AuthenticatedWorkspace, WorkspaceKeySecret, WorkspaceCredentials, ExpiringCache } from './workspace-credentials';
export { AuthenticatedRequest, CurrentWorkspace, WORKSPACE_CREDENTIALS, WorkspaceAuthGuard, refuseWriteWithReadOnlyKey } from './workspace-auth.guard';
export { WorkspaceAuthModule, WorkspaceAuthOptions } from './workspace-auth.module';
export { readOnlyApiKeysMigration, workspaceCredentialsMigration } from './workspace-credentials.migration';
export { acknowledgeCredentials } from './credentials-acknowledgement';
