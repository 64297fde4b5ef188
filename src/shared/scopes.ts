/** What a tenant's keys may do. */
export const CLIENT_SCOPES = ['submit_job', 'check_status', 'list_models', 'upload'] as const;
/** Operating the deployment through /v1/admin: accounts, keys, credits, usage and the audit log. */
export const ADMIN_SCOPE = 'admin';
export const SCOPES = [...CLIENT_SCOPES, ADMIN_SCOPE] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
