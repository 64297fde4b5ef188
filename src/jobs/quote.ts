/**
 * What submit and estimate share: the model version a caller may use, and the price of an input.
 * The same `estimateCost` call prices both, so an estimate always equals the charge of the same body.
 */
import type { Account, ApiKey } from '@prisma/client';
import { canUseModel, resolveModelVersion, type ResolvedModel } from '../catalog/versionResolver';
import type { PrismaClient } from '../db/prisma';
import { validateInput, withDefaults, type InputValidationResult } from '../domain/inputValidation';
import { UnsupportedPatternError } from '../domain/linearRegExp';
import { estimateCost, PricingError, type CostEstimate } from '../domain/pricing';
import { DomainError } from '../shared/errors';

export interface Caller {
  account: Account;
  apiKey: ApiKey;
}

/** Unknown slug or version, a disabled/deleted version or an inactive provider → MODEL_NOT_FOUND; no access → MODEL_ACCESS_DENIED. */
export async function resolveUsableModel(prisma: PrismaClient, caller: Caller, slug: string, version?: string): Promise<ResolvedModel> {
  const resolved = await resolveModelVersion(prisma, slug, version);
  if (!resolved || !resolved.provider.isActive) {
    const which = version === undefined ? slug : `${slug} version ${version}`;
    throw new DomainError('MODEL_NOT_FOUND', `Model ${which} does not exist or is unavailable`, { model: slug, ...(version ? { version } : {}) });
  }
  if (!canUseModel(resolved.model, caller.account, caller.apiKey)) {
    throw new DomainError('MODEL_ACCESS_DENIED', `This API key has no access to model ${slug}`, { model: slug });
  }
  return resolved;
}

/**
 * Validates against the version's schema. A schema stored before patterns were refused at import, with one the
 * linear-time engine cannot run, leaves the model unusable: MODEL_NOT_FOUND naming the pattern, never a 500.
 */
function checkAgainstSchema(resolved: ResolvedModel, input: unknown): InputValidationResult {
  try {
    return validateInput(resolved.version.inputSchema, input);
  } catch (err) {
    if (!(err instanceof UnsupportedPatternError)) throw err;
    const slug = resolved.model.slug;
    throw new DomainError('MODEL_NOT_FOUND', `Model ${slug} is unavailable: its input schema's ${err.message}`, { model: slug });
  }
}

/** The input with schema defaults, or INVALID_INPUT listing every failing path. */
export function validatedInput(resolved: ResolvedModel, input: unknown): Record<string, unknown> {
  const result = checkAgainstSchema(resolved, input);
  if (!result.ok) {
    throw new DomainError('INVALID_INPUT', `input does not match the schema of ${resolved.model.slug}`, result.errors);
  }
  return result.value;
}

/** The input an estimate prices: defaults applied; missing required fields are fine, wrong values are not. */
export function estimableInput(resolved: ResolvedModel, input: unknown): Record<string, unknown> {
  const result = checkAgainstSchema(resolved, input ?? {});
  if (!result.ok) {
    const wrong = result.errors.filter((e) => e.message !== 'is required');
    if (wrong.length > 0) throw new DomainError('INVALID_INPUT', `input does not match the schema of ${resolved.model.slug}`, wrong);
    return withDefaults(resolved.version.inputSchema, input);
  }
  return result.value;
}

export function price(resolved: ResolvedModel, input: Record<string, unknown>, discountPercent: number): CostEstimate {
  try {
    return estimateCost(resolved.version.pricing, input, discountPercent);
  } catch (err) {
    if (err instanceof PricingError) {
      throw new DomainError('INVALID_INPUT', `input cannot be priced: ${err.message}`, [{ path: err.field ?? '', message: err.message }]);
    }
    throw err;
  }
}
