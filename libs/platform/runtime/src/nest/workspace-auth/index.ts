export { AuthenticatedWorkspace, WorkspaceKeySecret, WorkspaceCredentials, ExpiringCache } from './workspace-credentials';
export { AuthenticatedRequest, CurrentWorkspace, WORKSPACE_CREDENTIALS, WorkspaceAuthGuard } from './workspace-auth.guard';
export { WorkspaceAuthModule, WorkspaceAuthOptions } from './workspace-auth.module';
export { workspaceCredentialsMigration } from './workspace-credentials.migration';
