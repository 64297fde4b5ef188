/** POST /v1/jobs/estimate: the price a submit of the same body would charge, with its breakdown. */
import type { PrismaClient } from '../db/prisma';
import type { CostEstimate } from '../domain/pricing';
import { estimableInput, price, resolveUsableModel, type Caller } from './quote';

export interface EstimateRequest {
  model: string;
  version?: string;
  input?: Record<string, unknown>;
}

export async function estimateJob(prisma: PrismaClient, caller: Caller, request: EstimateRequest): Promise<CostEstimate> {
  const resolved = await resolveUsableModel(prisma, caller, request.model, request.version);
  const input = estimableInput(resolved, request.input);
  return price(resolved, input, caller.account.discountPercent);
}
