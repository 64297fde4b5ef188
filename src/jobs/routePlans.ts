/**
 * The routes a job is tried on: the version's routes that take jobs here, narrowed by the submit's `providers`,
 * each with its task queue, our timeout for an upstream and how its failed status checks are retried, the expected
 * processing time and the list price of the job's input there.
 */
import type { ResolvedModel } from '../catalog/versionResolver';
import type { Config } from '../config';
import { estimateCost } from '../domain/pricing';
import { DomainError } from '../shared/errors';
import type { RoutePlan } from '../contracts/workflows/job';
import { providerTaskQueue } from '../shared/temporal';
import { checkRetryFrom } from '../shared/upstreams';
import { backoffFrom, PROVIDER_START_RETRY } from '../shared/jobs';

export function routePlans(
  resolved: ResolvedModel,
  input: Record<string, unknown>,
  allowedProviders: string[] | undefined,
  config: Pick<Config, 'temporal' | 'providers' | 'upstreams' | 'jobs'>,
): RoutePlan[] {
  const available = resolved.routes.filter((route) => route.available);
  const chosen = allowedProviders ? available.filter((route) => allowedProviders.includes(route.providerId)) : available;
  if (chosen.length === 0) {
    const offered = available.map((route) => route.providerId).join(', ');
    throw new DomainError('INVALID_INPUT', `providers: ${resolved.model.slug} runs on none of them here; its routes are ${offered}`, [
      { path: 'providers', message: `none of these providers runs this model; its routes are ${offered}` },
    ]);
  }
  return chosen.map((route) => {
    const timeScale = route.adapter === 'local' ? config.providers.timeScale : 1;
    return {
      providerId: route.providerId,
      taskQueue: providerTaskQueue(route.providerId, config.temporal.providerTaskQueuePrefix),
      startRetry: backoffFrom(config.jobs.startRetryInitialMs, PROVIDER_START_RETRY),
      ...(route.upstream ? { upstream: { mapping: route.upstream, timeoutSeconds: config.upstreams.timeoutSeconds, checkRetry: checkRetryFrom(config.upstreams.checkRetryInitialMs) } } : {}),
      expectedProcessingSeconds: Math.max(1, Math.round(resolved.version.processingSeconds * timeScale)),
      ...(route.listPrice ? { listPriceMicroCents: estimateCost(route.listPrice, input, 0).estimatedCostMicroCents } : {}),
    };
  });
}
