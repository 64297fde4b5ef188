/**
 * Plans as data (catalog/plans.json): each plan's job priority, its weight in the fair share of the task queues and
 * how long its accounts' outputs are kept.
 * An account's `plan` names one of them; a name that is not (left from before plans were data, or a plan since
 * removed) gets the `standard` plan's policy, so such an account keeps running as it did.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { findRepoRoot } from '../lib/repoRoot';
import { JOB_PRIORITIES, type JobPriority } from '../shared/jobPriority';
import { MAX_OUTPUT_RETENTION_SECONDS } from '../shared/retention';

export { JOB_PRIORITIES, type JobPriority };

export const DEFAULT_PLAN = 'standard';

export interface PlanPolicy {
  /** The plan's own name; `standard` for an account whose plan is unknown. */
  name: string;
  description: string;
  /** The priority of the account's jobs, and the highest its submits may ask for. */
  priority: JobPriority;
  /** The account's share of a busy task queue against accounts of the same priority (weight 3 gets 3 tasks to 1's one). */
  fairnessWeight: number;
  /** How long the outputs of the plan's accounts are kept after a job completes, in seconds; null keeps them forever. */
  outputRetentionSeconds: number | null;
  /**
   * Percent off a batch item's price, applied after the account's own discount: batch items wait for spare capacity.
   * Absent in the file: none.
   */
  batchDiscountPercent: number;
}

/**
 * Temporal's priority keys: 1 runs first, 3 is the key of a task that sets none. `normal` is 3, so jobs and any other
 * workflow that sets no priority (uploads, webhooks) share one level; 5 is the batch items' (src/jobs/scheduling.ts)
 * and 1 is left for the operator's own use.
 */
const TEMPORAL_PRIORITY_KEYS: Record<JobPriority, number> = { high: 2, normal: 3, low: 4 };

export function temporalPriorityKey(priority: JobPriority): number {
  return TEMPORAL_PRIORITY_KEYS[priority];
}

export function isJobPriority(value: unknown): value is JobPriority {
  return typeof value === 'string' && (JOB_PRIORITIES as readonly string[]).includes(value);
}

/** Whether `a` runs before `b` when both wait. */
export function priorityAbove(a: JobPriority, b: JobPriority): boolean {
  return TEMPORAL_PRIORITY_KEYS[a] < TEMPORAL_PRIORITY_KEYS[b];
}

const PlanFile = z
  .array(
    z.strictObject({
      name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
      description: z.string(),
      priority: z.enum(JOB_PRIORITIES),
      // Temporal clamps weights to [0.001, 1000].
      fairnessWeight: z.number().min(0.001).max(1000),
      outputRetentionSeconds: z.number().int().min(1).max(MAX_OUTPUT_RETENTION_SECONDS).nullable(),
      batchDiscountPercent: z.number().int().min(0).max(100).default(0),
    }),
  )
  .min(1)
  .superRefine((plans, ctx) => {
    const names = plans.map((p) => p.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `plan ${name} is listed twice` });
    });
    if (!names.includes(DEFAULT_PLAN)) ctx.addIssue({ code: 'custom', path: [], message: `the ${DEFAULT_PLAN} plan is missing: it is the default` });
  });

/** Validates the content of a plans file; throws naming every problem. */
export function parsePlans(json: unknown, file = 'plans.json'): PlanPolicy[] {
  const parsed = PlanFile.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new Error(`Invalid plans:\n  - ${problems.join('\n  - ')}`);
}

export const PLANS_FILE = path.join(findRepoRoot(__dirname), 'catalog', 'plans.json');

// Read once at start: a broken plans file stops the process that loads it, not a submit later.
const PLANS: readonly PlanPolicy[] = parsePlans(JSON.parse(readFileSync(PLANS_FILE, 'utf8')), PLANS_FILE);
const BY_NAME = new Map(PLANS.map((plan) => [plan.name, plan]));

export const PLAN_NAMES: readonly string[] = PLANS.map((plan) => plan.name);

/**
 * The discount of a batch item of an account: the account's own, then the plan's batch discount on what remains,
 * rounded in the customer's favour (10 % and 50 % make 55 %).
 */
export function batchItemDiscountPercent(account: { plan: string; discountPercent: number }): number {
  const remaining = ((100 - account.discountPercent) * (100 - planPolicy(account.plan).batchDiscountPercent)) / 100;
  return 100 - Math.floor(remaining);
}

/** The plan's policy, or the `standard` plan's for a name that is no plan. */
export function planPolicy(name: string): PlanPolicy {
  return BY_NAME.get(name) ?? BY_NAME.get(DEFAULT_PLAN)!;
}
