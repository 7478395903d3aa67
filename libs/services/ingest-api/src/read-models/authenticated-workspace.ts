/** The workspace a request or an ingress message was proven to belong to. */
export interface AuthenticatedWorkspace {
  readonly id: string;
  readonly slug: string;
}
