/**
 * What a tenant's keys may do. `manage_outputs` changes where the account's outputs go (its destination bucket): a
 * key of its own, apart from `submit_job`, and never one limited to some models, as it changes the whole account.
 */
export const CLIENT_SCOPES = ['submit_job', 'check_status', 'list_models', 'upload', 'manage_outputs'] as const;
/** The scope that sets and removes the account's destination. */
export const MANAGE_OUTPUTS_SCOPE = 'manage_outputs';
/** Operating the deployment through /v1/admin: accounts, keys, credits, usage and the audit log. */
export const ADMIN_SCOPE = 'admin';
export const SCOPES = [...CLIENT_SCOPES, ADMIN_SCOPE] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
