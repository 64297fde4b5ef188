/**
 * What the upstreams bill for a set of jobs, in micro-cents, counted from the generations the upstreams accepted
 * (the fakes' records), so a generation no attempt kept the id of is counted too. A generation costs what its
 * upstream reported on the attempt (`job_attempts.upstream_cost_micro_cents`: fal's billing events), else its
 * route's list price when it ran at the upstream, else nothing:
 *  - fal runs a request once it leaves its queue; a request cancelled while IN_QUEUE is removed from the queue and
 *    never runs. Whether it left the queue is read from the fake's own record (queued until createdAt + queuedMs)
 *    against the attempt's end, the latest its cancel can have landed: a loser is counted as billed when in doubt.
 *  - Replicate bills the time a prediction runs: one with a `started_at` ran; one canceled while `starting` did not.
 * Also an upper bound: every accepted generation at its list price, as if a cancelled one were billed in full.
 */
import type { FalFake } from '../test/support/upstreams/fal';
import type { ReplicateFake } from '../test/support/upstreams/replicate';

export interface AttemptRow {
  providerId: string;
  upstreamId: string | null;
  endedAt: Date | null;
  upstreamCostMicroCents: bigint | null;
}

export interface Spend {
  /** What the upstreams bill (see above). */
  billed: number;
  /** Every accepted generation at its list price. */
  upperBound: number;
  /** Generations accepted upstream: by fal, by Replicate. */
  accepted: { fal: number; replicate: number };
  /** Accepted generations that no attempt holds the id of (paid for, never followed or cancelled by us). */
  orphans: number;
}

export interface SpendOptions {
  fal: FalFake;
  replicate: ReplicateFake;
  /** Each route's list price for the jobs' input, by provider. */
  listPrice: Record<string, number>;
}

/** The spend of the jobs whose prompts `ofJobs` accepts, whose attempts are `attempts`. */
export async function upstreamSpend(ofJobs: (prompt: string) => boolean, attempts: AttemptRow[], options: SpendOptions): Promise<Spend> {
  const byUpstreamId = new Map(attempts.filter((a) => a.upstreamId).map((a) => [a.upstreamId!, a]));
  const spend: Spend = { billed: 0, upperBound: 0, accepted: { fal: 0, replicate: 0 }, orphans: 0 };
  const count = (providerId: 'fal' | 'replicate', id: string, ran: boolean) => {
    const price = options.listPrice[providerId];
    if (price === undefined || Number.isNaN(price)) throw new Error(`no list price for route ${providerId}`);
    const attempt = byUpstreamId.get(id);
    spend.accepted[providerId] += 1;
    spend.upperBound += price;
    if (!attempt) spend.orphans += 1;
    if (attempt?.upstreamCostMicroCents != null) spend.billed += Number(attempt.upstreamCostMicroCents);
    else if (ran) spend.billed += price;
  };

  for (const request of options.fal.falRequests()) {
    if (!ofJobs(String(request.input.prompt))) continue;
    const cancelledBy = request.cancelled ? (byUpstreamId.get(request.id)?.endedAt?.getTime() ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY;
    count('fal', request.id, request.createdAt + request.queuedMs < cancelledBy);
  }
  for (const prediction of options.replicate.predictions()) {
    if (!ofJobs(String(prediction.input.prompt))) continue;
    count('replicate', prediction.id, await started(options.replicate, prediction.id));
  }
  return spend;
}

async function started(replicate: ReplicateFake, id: string): Promise<boolean> {
  const res = await fetch(`${replicate.url}/v1/predictions/${id}`, { headers: { authorization: `Bearer ${replicate.apiKey}` } });
  if (!res.ok) throw new Error(`Replicate answered ${res.status} for prediction ${id}`);
  const prediction = (await res.json()) as { started_at?: string };
  return prediction.started_at !== undefined;
}
