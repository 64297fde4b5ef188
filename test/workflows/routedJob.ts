/** A job with two routes, and providers that fail or complete: what the failover and hedging tests share. */
import { ApplicationFailure } from '@temporalio/activity';
import type { JobWorkflowInput, RoutePlan } from '../../src/contracts/workflows/job';
import type { GenerationStart } from '../../src/shared/upstreams';
import { jobInput, type ProviderFake } from './jobHarness';

export function routedInput(overrides: Partial<JobWorkflowInput> = {}): JobWorkflowInput {
  const base = jobInput(overrides);
  const route = (name: string): RoutePlan => ({ providerId: `${name}-${base.jobId.slice(0, 8)}`, taskQueue: `provider.${name}-${base.jobId}`, expectedProcessingSeconds: 3 });
  const routes = [route('first'), route('second')];
  return { ...base, routes };
}

/** A provider that fails with `code` (not retryable, so the test need not wait out backoffs), or completes. */
export function routeProvider(seen: GenerationStart[], code?: string): ProviderFake {
  return {
    async startGeneration(args) {
      seen.push(args);
      if (code) throw ApplicationFailure.create({ type: code, message: `${code} here`, nonRetryable: true });
      return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
    },
  };
}
