/**
 * Who may see and who may use a model.
 *
 * - `public`: everyone, without a credential.
 * - `segment`: accounts sharing at least one segment with the model.
 * - `private`: accounts whose `allowedModels` names the model's slug.
 * An account's `allowedModels` also grants a segment model outside its segments.
 * Using a model additionally requires the API key's `allowedModels` to name it (empty = every model).
 */
export interface VisibilityModel {
  slug: string;
  visibility: 'public' | 'segment' | 'private' | string;
  segments: string[];
}

export interface VisibilityAccount {
  segments: string[];
  allowedModels: string[];
}

export interface UsageApiKey {
  allowedModels: string[];
}

export function canSeeModel(model: VisibilityModel, account: VisibilityAccount | null): boolean {
  if (model.visibility === 'public') return true;
  if (!account) return false;
  if (account.allowedModels.includes(model.slug)) return true;
  if (model.visibility === 'segment') return model.segments.some((s) => account.segments.includes(s));
  return false;
}

export function canUseModel(model: VisibilityModel, account: VisibilityAccount, apiKey: UsageApiKey): boolean {
  return canSeeModel(model, account) && (apiKey.allowedModels.length === 0 || apiKey.allowedModels.includes(model.slug));
}

/**
 * A string identifying everything that decides what a caller sees and pays in the catalog:
 * equal contexts get equal catalog answers, so they share cache entries.
 */
export function visibilityContextKey(account: (VisibilityAccount & { discountPercent: number }) | null): string {
  if (!account) return 'anonymous';
  const segments = [...new Set(account.segments)].sort().join(',');
  const allowed = [...new Set(account.allowedModels)].sort().join(',');
  return `s=${segments}|a=${allowed}|d=${account.discountPercent}`;
}
