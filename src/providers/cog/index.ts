/**
 * Self-hosted models on Cog prediction servers (docs/self-hosted.md). A provider whose adapter is `cog` owns a pool of
 * servers (`cog_servers`), each with its number of slots.
 *
 * submit: the first server that is READY and has a slot free in PostgreSQL (a lease, so all the provider's workers
 *   together never send a server more than its slots) gets `PUT /predictions/{id}` with `Prefer: respond-async`
 *   and a webhook URL carrying this prediction's secret. The id comes from the job (or attempt) id, so a repeated PUT
 *   while the prediction runs attaches to it instead of starting another. With every slot taken, submit waits for
 *   one (nothing is sent meanwhile), then gives up with PROVIDER_RATE_LIMITED and the activity is retried.
 * status: Cog has no GET of a prediction and forgets one as soon as it ends; a re-PUT after that would start a new,
 *   paid run. So the completed webhook, kept by the callback endpoint, is what ends a job. While it has not come, a
 *   check probes the server with a re-PUT whose input is invalid (the live snapshot while the prediction runs, a
 *   refusal otherwise; never a run). A prediction its server no longer runs and no webhook finished is given
 *   a grace period for a late webhook, then fails PROVIDER_UNAVAILABLE (refunded, or failed over); a server that
 *   restarted or broke fails it at once.
 * cancel: `POST /predictions/{id}/cancel`, and the slot is freed.
 * outputs: whatever the prediction returned (data URLs, or URLs where the server uploads with --upload-url); the
 *   generation activities decode or download them into our storage.
 * files: a server never gets a tenant's URL. Each file input is handed over as a data: URI (prepareFile), and any
 *   other URL in the input must be one the address guard would fetch (inputFiles.ts). Every request to a server goes
 *   through the guard too, to the networks COG_ALLOWED_NETWORKS allows and without following redirects.
 */
import { ProviderError, type GenerationSnapshot, type ProviderAdapter } from '../types';
import { failureRule } from '../../shared/failureCodes';
import { predictionIdOf } from './ids';
import { isTerminal, snapshotOf, type CogPrediction } from './predictions';
import type { AllowedNetworks } from '../../net/allowedNetworks';
import { cogFileOf, refuseUnguardedUrls, type TenantUrlRules } from './inputFiles';
import type { CogPredictionStore, CogServer } from './store';
import { createCogTransport, type CogTransport } from './transport';
import { createCogWebhookVerifier, hashOf, newWebhookSecret, webhookUrlWith } from './webhooks';

export { predictionIdOf } from './ids';
export { progressOfLogs, stageOfLogs, snapshotOf } from './predictions';
export { createCogTransport } from './transport';
export { createCogWebhookVerifier } from './webhooks';
export type { CogPredictionStore, CogServer } from './store';

const WEBHOOK_EVENTS = ['start', 'output', 'logs', 'completed'];
/** Health states in which a server's predictions are gone for good (or, REFUSED, out of our reach by policy). */
const BROKEN = new Set(['SETUP_FAILED', 'DEFUNCT', 'UNHEALTHY', 'REFUSED']);

export interface CogAdapterOptions {
  providerId: string;
  store: CogPredictionStore;
  requestTimeoutMs?: number;
  /** How long submit waits for a free slot before the activity is retried (default 60 s). */
  slotWaitMs?: number;
  /** How long a prediction may be missing from its server with no completed webhook before it is failed (default 60 s). */
  missingGraceMs?: number;
  /** A slot held longer than this without being released is free again (default: the job's deadline + 10 min). */
  leaseMarginMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The networks the servers may be on (COG_ALLOWED_NETWORKS); needed unless `transport` is given. */
  allowedNetworks?: AllowedNetworks;
  /** The HTTP calls (tests give their own). */
  transport?: CogTransport;
  /** Which URLs left in an input (outside its file fields) may go to a server: those the guard would fetch. */
  tenantUrls?: TenantUrlRules;
}

const NEVER_ABORTED = new AbortController().signal;

function lost(id: string, why: string): GenerationSnapshot {
  return { id, state: 'failed', stage: 'lost', error: new ProviderError('PROVIDER_UNAVAILABLE', `Cog prediction ${id} ${why}`, { retryable: false }) };
}

function transportFor(options: CogAdapterOptions): CogTransport {
  if (!options.allowedNetworks) throw new Error('a Cog adapter needs the networks its servers may be on (allowedNetworks)');
  return createCogTransport({ timeoutMs: options.requestTimeoutMs ?? 30_000, allowedNetworks: options.allowedNetworks });
}

export function createCogAdapter(options: CogAdapterOptions): ProviderAdapter {
  const { store, providerId } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const transport = options.transport ?? transportFor(options);
  const tenantUrls = options.tenantUrls ?? { allowPrivate: false };
  const slotWaitMs = options.slotWaitMs ?? 60_000;
  const missingGraceMs = options.missingGraceMs ?? 60_000;
  const leaseMarginMs = options.leaseMarginMs ?? 10 * 60_000;
  const verifyWebhook = createCogWebhookVerifier(store);

  /**
   * Tries each ready server with a free slot once; the prediction's first snapshot, `refused` when the guard refuses
   * every server's address, or undefined when none took it.
   */
  async function tryServers(servers: CogServer[], id: string, body: Record<string, unknown>, secretHash: Buffer, deadline: Date, signal: AbortSignal) {
    let refused = 0;
    for (const server of servers) {
      const health = await transport.health(server.url, signal);
      if (health?.status === 'REFUSED') refused += 1;
      if (health?.status !== 'READY') continue;
      const leased = await store.lease({
        id,
        providerId,
        serverUrl: server.url,
        slots: server.slots,
        secretHash,
        ...(health.startedAt ? { serverStartedAt: health.startedAt } : {}),
        expiresAt: new Date(Math.max(deadline.getTime(), now()) + leaseMarginMs),
      });
      if (!leased) continue;
      let answer: CogPrediction | 'busy';
      try {
        // The paid request runs to its answer: its own timeout ends it.
        answer = await transport.create(server.url, id, body, NEVER_ABORTED);
      } catch (error) {
        if (error instanceof ProviderError && !failureRule(error.code).mayHaveStarted) await store.release(id);
        throw error;
      }
      if (answer === 'busy') {
        // Someone else's predictions hold the server's slots.
        await store.release(id);
        continue;
      }
      return snapshotOf(id, answer);
    }
    return refused === servers.length ? ('refused' as const) : undefined;
  }

  return {
    id: providerId,

    prepareFile: (file, signal) => cogFileOf(file, signal),

    async submit(submission, signal) {
      if (!submission.callbackUrl) {
        throw new ProviderError('PROVIDER_AUTH_FAILED', 'Cog servers report only by webhook: set COG_CALLBACK_BASE_URL to an origin of this API they can reach', {
          retryable: false,
        });
      }
      await refuseUnguardedUrls(submission.input, tenantUrls);
      const id = predictionIdOf(submission.attemptId ?? submission.jobId);
      const secret = newWebhookSecret();
      const body = { input: submission.input, webhook: webhookUrlWith(submission.callbackUrl, id, secret), webhook_events_filter: WEBHOOK_EVENTS };
      const giveUpAt = Math.min(now() + slotWaitMs, submission.deadline.getTime());
      for (;;) {
        const servers = await store.servers(providerId);
        if (servers.length === 0) {
          throw new ProviderError('PROVIDER_UNAVAILABLE', `provider ${providerId} has no Cog server attached`, { retryable: false });
        }
        const started = await tryServers(servers, id, body, hashOf(secret), submission.deadline, signal);
        if (started === 'refused') {
          throw new ProviderError('PROVIDER_UNAVAILABLE', `every Cog server of provider ${providerId} is on a network COG_ALLOWED_NETWORKS does not allow`, {
            retryable: false,
          });
        }
        if (started) return started;
        if (now() >= giveUpAt) {
          throw new ProviderError('PROVIDER_RATE_LIMITED', `every slot of provider ${providerId}'s Cog servers is taken, or none is ready`, {
            retryable: true,
            retryAfterSeconds: 2,
          });
        }
        await sleep(500);
      }
    },

    async status(ref, signal) {
      const record = await store.find(ref.id);
      if (!record) return lost(ref.id, 'is not known here');
      if (record.terminal) return snapshotOf(ref.id, record.snapshot as CogPrediction);
      const health = await transport.health(record.serverUrl, signal);
      const restarted = health && record.serverStartedAt && health.startedAt && health.startedAt !== record.serverStartedAt;
      if (health && (restarted || BROKEN.has(health.status))) {
        const again = await store.find(ref.id);
        if (again?.terminal) return snapshotOf(ref.id, again.snapshot as CogPrediction);
        await store.release(ref.id);
        return lost(ref.id, restarted ? `was lost: its server ${record.serverUrl} restarted` : `was lost: its server ${record.serverUrl} is ${health.status}`);
      }
      const live = health ? await transport.probe(record.serverUrl, ref.id, signal).catch(() => undefined) : undefined;
      if (live && live !== 'absent' && !isTerminal(live)) return snapshotOf(ref.id, { ...live, status: live.status ?? 'processing' });
      // Finished with its webhook on the way, or gone with the server: wait a grace period for the webhook.
      const again = await store.find(ref.id);
      if (again?.terminal) return snapshotOf(ref.id, again.snapshot as CogPrediction);
      const since = await store.markMissing(ref.id, new Date(now()));
      if (now() - since.getTime() >= missingGraceMs) {
        await store.release(ref.id);
        return lost(ref.id, health ? 'ended on its server but no completed webhook came' : `was lost: its server ${record.serverUrl} cannot be reached`);
      }
      const last = (again?.snapshot ?? { status: 'processing' }) as CogPrediction;
      return snapshotOf(ref.id, { ...last, status: 'processing' });
    },

    async cancel(ref, signal) {
      const record = await store.find(ref.id);
      if (!record || record.terminal || record.released) return;
      try {
        await transport.cancel(record.serverUrl, ref.id, signal);
      } catch (error) {
        // A server that cannot be reached runs nothing of ours any more.
        if (!(error instanceof ProviderError) || error.code !== 'PROVIDER_UNAVAILABLE') throw error;
      }
      await store.release(ref.id);
    },

    verifyCallback: (request) => verifyWebhook(request),
  };
}
