/**
 * The one pricing function. `/v1/jobs/estimate`, the submit charge and the catalog prices all
 * come from here, from the pricing rule stored with each model version (`ModelVersion.pricing`).
 *
 * cost = baseMicroCents × units × Π multipliers − discount
 *
 * Arithmetic is exact: integers in BigInt, multipliers in millionths. After each multiplier the
 * running subtotal is rounded half up to a whole micro-cent; the discount saving is rounded down,
 * so a customer never pays more than the exact discounted price plus half a micro-cent per step.
 */
import type { z } from 'zod';
import type { CostEstimateSchema } from '../contracts/http/jobs';
import { MICRO_CENTS_PER_CREDIT } from '../shared/money';

export const PRICING_UNITS = ['per_image', 'per_second', 'per_generation'] as const;
export type PricingUnit = (typeof PRICING_UNITS)[number];

export interface PricingRule {
  /** Price of one unit (one image, one second, one generation) in micro-cents. */
  baseMicroCents: number;
  unit: PricingUnit;
  /**
   * Input field holding the number of units (`num_images` for per_image, `duration` for per_second).
   * Required unless the unit is `per_generation`. Its value is a positive integer or a string of one.
   */
  unitsField?: string;
  /** Factors by input value, applied in key order: `{ quality: { std: 1, pro: 1.5 } }`. */
  multipliers?: Record<string, Record<string, number>>;
}

// The estimate's shape is its response schema (src/contracts/http/jobs.ts); only the type is imported.
export type CostEstimate = z.infer<typeof CostEstimateSchema>;
export type CostBreakdownEntry = CostEstimate['breakdown'][number];

export const DISCOUNT_TYPE = 'account_discount';

/** A rule and input that cannot be priced (missing or unknown field value). */
export class PricingError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'PricingError';
  }
}

const PPM = 1_000_000n;

/** Breakdown name of the units component for each unit. */
const UNITS_COMPONENT: Record<PricingUnit, string | null> = {
  per_image: 'quantity_multiplier',
  per_second: 'duration_multiplier',
  per_generation: null,
};

export function estimateCost(rule: PricingRule, input: Record<string, unknown>, discountPercent: number): CostEstimate {
  assertDiscount(discountPercent);
  const base = BigInt(assertMicroCents(rule.baseMicroCents));
  const breakdown: CostBreakdownEntry[] = [{ component: 'base', costMicroCents: Number(base) }];

  let subtotal = base;
  const unitsComponent = UNITS_COMPONENT[rule.unit];
  if (unitsComponent) {
    const units = BigInt(readUnits(rule, input));
    const next = base * units;
    breakdown.push({ component: unitsComponent, costMicroCents: Number(next - subtotal) });
    subtotal = next;
  }

  for (const [field, table] of Object.entries(rule.multipliers ?? {})) {
    const value = input[field];
    const key = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    if (key === undefined || !Object.prototype.hasOwnProperty.call(table, key)) {
      throw new PricingError(`no price multiplier for ${field}=${JSON.stringify(value)}`, field);
    }
    const next = roundHalfUp(subtotal * toPpm(table[key]), PPM);
    breakdown.push({ component: `${field}_multiplier`, costMicroCents: Number(next - subtotal) });
    subtotal = next;
  }

  const saved = discountSaving(subtotal, discountPercent);
  const estimate: CostEstimate = {
    baseCostMicroCents: toSafe(subtotal),
    estimatedCostMicroCents: toSafe(subtotal - saved),
    breakdown,
    hasDiscount: discountPercent > 0,
  };
  if (discountPercent > 0) {
    breakdown.push({ component: 'discount', costMicroCents: -Number(saved) });
    estimate.discounted = { type: DISCOUNT_TYPE, percentage: discountPercent, savedMicroCents: Number(saved) };
  }
  return estimate;
}

/**
 * The catalog's statement of a price: credits per unit, the account's discount applied to one unit.
 * 1 credit = 1,000 micro-cents, so `baseCredits` has at most three decimals.
 */
export function catalogPrice(rule: PricingRule, discountPercent: number): { baseCredits: number; unit: PricingUnit } {
  assertDiscount(discountPercent);
  const base = BigInt(assertMicroCents(rule.baseMicroCents));
  const perUnit = base - discountSaving(base, discountPercent);
  return { baseCredits: Number(perUnit) / MICRO_CENTS_PER_CREDIT, unit: rule.unit };
}

/** Millionths of a multiplier; rejects factors that are negative or finer than a millionth. */
export function toPpm(factor: number): bigint {
  const ppm = Math.round(factor * 1_000_000);
  if (!Number.isFinite(factor) || factor < 0 || Math.abs(ppm - factor * 1_000_000) > 1e-6) {
    throw new PricingError(`multiplier ${factor} must be a non-negative number with at most 6 decimals`);
  }
  return BigInt(ppm);
}

/** Parses a units value: a positive integer, or a string holding one ("4"). */
export function parseUnits(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function readUnits(rule: PricingRule, input: Record<string, unknown>): number {
  if (!rule.unitsField) throw new PricingError(`pricing unit ${rule.unit} needs a unitsField`);
  const units = parseUnits(input[rule.unitsField]);
  if (units === null) {
    throw new PricingError(`${rule.unitsField} must be a positive integer, got ${JSON.stringify(input[rule.unitsField])}`, rule.unitsField);
  }
  return units;
}

function discountSaving(amount: bigint, discountPercent: number): bigint {
  return (amount * BigInt(discountPercent)) / 100n; // rounds down
}

function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

function assertDiscount(discountPercent: number): void {
  if (!Number.isInteger(discountPercent) || discountPercent < 0 || discountPercent > 100) {
    throw new RangeError(`discountPercent must be an integer from 0 to 100, got ${discountPercent}`);
  }
}

function assertMicroCents(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new PricingError(`baseMicroCents must be a non-negative integer, got ${value}`);
  return value;
}

function toSafe(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`cost ${value} is not a safe integer`);
  return n;
}
