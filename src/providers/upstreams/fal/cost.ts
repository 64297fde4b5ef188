/**
 * What a finished fal request cost. The queue API does not say; fal's Platform API lists each request's
 * billing event with `cost_estimate_nano_usd` (https://docs.fal.ai/platform-apis/v1/models/billing-events),
 * readable with an ADMIN-scoped key only. The client has no call for it, so it is fetched here, when
 * `FAL_ADMIN_KEY` is set, and only as a best effort: the cost is informational and never fails a job.
 */
import { abortError, withTimeout } from '../../abort';
import { redirectToOrigin, type FalTransport } from './transport';

const BILLING_EVENTS_URL = 'https://api.fal.ai/v1/models/billing-events';
/** Our money unit: US$1 = 1,000,000 micro-cents (docs/api-reference.md), so 1,000 nano-dollars each. */
const NANO_USD_PER_MICRO_CENT = 1_000;

interface BillingEvent {
  request_id?: unknown;
  cost_estimate_nano_usd?: unknown;
}

export type CostLookup = (requestId: string, signal: AbortSignal) => Promise<number | undefined>;

export function createCostLookup(adminKey: string | undefined, transport: FalTransport): CostLookup {
  if (!adminKey) return async () => undefined;
  return async (requestId, signal) => {
    const url = `${redirectToOrigin(BILLING_EVENTS_URL, transport.origin)}?request_id=${encodeURIComponent(requestId)}`;
    try {
      const response = await fetch(url, { headers: { authorization: `Key ${adminKey}`, accept: 'application/json' }, signal: withTimeout(signal, transport.timeoutMs) });
      if (!response.ok) {
        await response.body?.cancel();
        return undefined;
      }
      const body = (await response.json()) as { billing_events?: BillingEvent[] };
      const event = body.billing_events?.find((e) => e.request_id === requestId);
      const nanoUsd = event?.cost_estimate_nano_usd;
      return typeof nanoUsd === 'number' && Number.isFinite(nanoUsd) && nanoUsd >= 0 ? Math.round(nanoUsd / NANO_USD_PER_MICRO_CENT) : undefined;
    } catch {
      if (signal.aborted) throw abortError(signal);
      return undefined;
    }
  };
}
