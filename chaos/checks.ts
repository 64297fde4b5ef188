/** What must hold after any schedule of faults: every job ended, money exact, outputs stored, webhooks delivered once. */
import type { PrismaClient } from '../src/db/prisma';
import type { JobOutput } from '../src/shared/jobs';
import type { Storage } from '../src/storage/storage';
import type { TestAccount } from '../test/support/accounts';
import type { ReceivedRequest } from '../test/support/httpsReceiver';

export interface Accepted {
  jobId: string;
  accountId: string;
  /** Which submit of the load it was (its prompt's number). */
  submit: number;
}

export interface CheckRow {
  check: string;
  ok: boolean;
  figure: string;
}

export async function checkInvariants(input: {
  prisma: PrismaClient;
  storage: Storage;
  accepted: Accepted[];
  accounts: TestAccount[];
  requests: ReceivedRequest[];
}): Promise<{ rows: CheckRow[] }> {
  const { prisma, storage, accepted } = input;
  const ids = accepted.map((a) => a.jobId);
  const jobs = await prisma.job.findMany({ where: { id: { in: ids } } });
  const byStatus = (status: string) => jobs.filter((j) => j.status === status).length;
  const rows: CheckRow[] = [];

  const open = jobs.filter((j) => j.status === 'pending' || j.status === 'processing');
  rows.push({
    check: 'every accepted job is terminal',
    ok: open.length === 0 && jobs.length === ids.length,
    figure: `${byStatus('completed')} completed, ${byStatus('failed')} failed, ${byStatus('cancelled')} cancelled, ${open.length} open, ${ids.length - jobs.length} missing`,
  });

  const ledger = await prisma.ledgerEntry.findMany({ where: { jobId: { in: ids } } });
  const charges = new Map<string, number>();
  const refunds = new Map<string, number>();
  for (const row of ledger) {
    const counts = row.kind === 'charge' ? charges : row.kind === 'refund' ? refunds : null;
    counts?.set(row.jobId!, (counts.get(row.jobId!) ?? 0) + 1);
  }
  const notChargedOnce = ids.filter((id) => charges.get(id) !== 1);
  const refundedTwice = ids.filter((id) => (refunds.get(id) ?? 0) > 1);
  rows.push({
    check: 'every accepted submit has one charge and at most one refund',
    ok: notChargedOnce.length === 0 && refundedTwice.length === 0,
    figure: `${ids.length - notChargedOnce.length}/${ids.length} charged once, ${refunds.size} refunded, ${refundedTwice.length} twice`,
  });

  // A submit the client was refused (after its retries) must not have left a charged job behind.
  const unannounced = await prisma.job.count({ where: { accountId: { in: input.accounts.map((a) => a.accountId) }, id: { notIn: ids } } });
  rows.push({ check: 'no job exists that its client was not told about', ok: unannounced === 0, figure: `${unannounced}` });

  let wrongBalances = 0;
  for (const account of input.accounts) {
    const row = await prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    const sum = await prisma.ledgerEntry.aggregate({ where: { accountId: account.accountId }, _sum: { amountMicroCents: true } });
    if ((sum._sum.amountMicroCents ?? 0n) !== row.balanceMicroCents) wrongBalances += 1;
  }
  rows.push({
    check: 'each balance = top-ups − charges + refunds',
    ok: wrongBalances === 0,
    figure: `${input.accounts.length - wrongBalances}/${input.accounts.length} accounts`,
  });

  const refundedWithMoney = new Set(ledger.filter((r) => r.kind === 'refund' && r.amountMicroCents > 0n).map((r) => r.jobId));
  const completedAndRefunded = jobs.filter((j) => j.status === 'completed' && (j.refundedMicroCents > 0n || refundedWithMoney.has(j.id)));
  rows.push({ check: 'no job is both completed and refunded', ok: completedAndRefunded.length === 0, figure: `${completedAndRefunded.length}` });

  let missingOutputs = 0;
  let outputs = 0;
  for (const job of jobs.filter((j) => j.status === 'completed')) {
    for (const output of job.outputs as unknown as JobOutput[]) {
      outputs += 1;
      if (!(await storage.stat(storage.outputsBucket, output.key))) missingOutputs += 1;
    }
  }
  rows.push({ check: "every completed job's outputs exist in MinIO", ok: missingOutputs === 0, figure: `${outputs - missingOutputs}/${outputs} outputs` });

  // Per job: the distinct webhook-ids received for its terminal event.
  const deliveries = new Map<string, Set<string>>();
  for (const request of input.requests) {
    let payload: { type?: string; data?: { jobId?: string } };
    try {
      payload = JSON.parse(request.body);
    } catch {
      continue;
    }
    const jobId = payload.data?.jobId;
    if (!jobId || payload.type !== `job.${jobs.find((j) => j.id === jobId)?.status}`) continue;
    const set = deliveries.get(jobId) ?? new Set<string>();
    set.add(String(request.headers['webhook-id']));
    deliveries.set(jobId, set);
  }
  const terminal = jobs.filter((j) => j.status === 'completed' || j.status === 'failed' || j.status === 'cancelled');
  const withoutDelivery = terminal.filter((j) => !deliveries.has(j.id));
  const severalIds = terminal.filter((j) => (deliveries.get(j.id)?.size ?? 0) > 1);
  rows.push({
    check: 'every terminal event reached its receiver with one webhook-id',
    ok: withoutDelivery.length === 0 && severalIds.length === 0,
    figure: `${terminal.length - withoutDelivery.length}/${terminal.length} delivered, ${severalIds.length} with several ids, ${input.requests.length} requests`,
  });
  return { rows };
}
