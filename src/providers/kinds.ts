/**
 * The kinds of provider: what a catalog provider's `adapter` may say, and everything that differs between them. Each
 * kind says how its adapter is built, whether and how it takes callbacks, and which worker, if any, runs its jobs;
 * the catalog's schema, the workers, the API's samplers and callback endpoint and the public catalog all read it here.
 *
 * - `local`: the built-in renderer; `http`: a worker speaking the HTTP queue protocol (docs/providers.md).
 * - `cog`: self-hosted Cog prediction servers (docs/self-hosted.md), served by the Cog worker.
 * - one hosted upstream per id (fal, Replicate, Runway, Google, OpenAI): usable when its credential is set.
 * - `maker`: owns models whose versions list the routes they run on; runs nothing itself.
 *
 * An adapter's code (the upstreams' SDKs alone are about 30 MB) is loaded when one is built, not by importing this.
 */
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import type { Storage } from '../storage/storage';
import { COG_CALLBACK_PATH } from '../shared/cog';
import { callbackUrl } from './callbackUrl';
import type { CallbackVerifier, ProviderAdapter } from './types';
import { UPSTREAM_IDS, type UpstreamId } from './upstreams/ids';

/** What building a provider's adapter may use. */
export interface AdapterResources {
  providerId: string;
  prisma: PrismaClient;
  storage: Storage;
  config: Config;
  /** Where the upstreams' credentials are read from. */
  env: NodeJS.ProcessEnv;
}

/** What building a kind's callback verifier may use. */
export interface VerifierResources {
  prisma: PrismaClient;
  env: NodeJS.ProcessEnv;
  requestTimeoutMs: number;
}

/** How a kind's providers call back: `POST /v1/providers/<kind>/callback`. */
export interface CallbackIntake {
  /** The largest body taken (a Cog webhook may carry its outputs as data: URLs). */
  bodyLimitBytes: number;
  /**
   * Whether a delivery seen before is refused (401): a signed callback may be replayed by anyone who saw it. A Cog
   * webhook is kept as what it says and may repeat itself.
   */
  refusesReplays: boolean;
  /**
   * Whether a callback about a generation no job has yet is taken (200) rather than not found (404): a Cog webhook is
   * kept before the job has stored its prediction's id, and the job reads it then.
   */
  takesUnknownGenerations: boolean;
  /** The checks of its deliveries; null when its callbacks cannot be checked here (no credentials). */
  verifier(resources: VerifierResources): Promise<CallbackVerifier | null>;
  /** Our callback URL its providers are given, when an origin for it is configured. */
  url(config: Pick<Config, 'upstreams' | 'cog'>): string | undefined;
}

/** Which worker runs a kind's jobs: one of its own per provider (`--provider <id>`), the Cog worker, or none. */
export type KindWorker = 'own' | 'cog' | 'none';

export interface ProviderKind {
  id: KindId;
  /** A hosted third-party API: its providers are usable only with its credential set. */
  upstream: boolean;
  worker: KindWorker;
  /** Its providers' versions name the model on it to run: an upstream mapping (the catalog's `upstream` block). */
  takesMapping: boolean;
  /** Absent for a kind that runs nothing. */
  adapter?(resources: AdapterResources): Promise<ProviderAdapter>;
  callbacks?: CallbackIntake;
}

export type KindId = 'local' | 'http' | 'cog' | 'maker' | UpstreamId;

/** A signed upstream callback is small: fal and Replicate send a generation's state and output URLs, not files. */
const SIGNED_CALLBACK_BODY_LIMIT = 1024 * 1024;
/** A completed Cog webhook carries the outputs as data URLs unless the server uploads them (--upload-url). */
const COG_CALLBACK_BODY_LIMIT = 64 * 1024 * 1024;

/** The headers that carry each signing upstream's signature: a callback without all of them is refused unread. */
const SIGNATURE_HEADERS: Partial<Record<UpstreamId, readonly string[]>> = {
  fal: ['x-fal-webhook-request-id', 'x-fal-webhook-user-id', 'x-fal-webhook-timestamp', 'x-fal-webhook-signature'],
  replicate: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
};

function upstreamKind(id: UpstreamId): ProviderKind {
  const signatureHeaders = SIGNATURE_HEADERS[id];
  return {
    id,
    upstream: true,
    worker: 'own',
    takesMapping: true,
    async adapter({ config, env }) {
      const { createUpstreamAdapter } = await import('./upstreams/adapters');
      return createUpstreamAdapter(id, { env, requestTimeoutMs: config.upstreams.requestTimeoutMs });
    },
    ...(signatureHeaders
      ? {
          callbacks: {
            bodyLimitBytes: SIGNED_CALLBACK_BODY_LIMIT,
            refusesReplays: true,
            takesUnknownGenerations: false,
            async verifier({ env, requestTimeoutMs }) {
              const { signedCallbackVerifier } = await import('./upstreams/callbacks');
              return signedCallbackVerifier(id, signatureHeaders, { env, requestTimeoutMs });
            },
            url: (config) => callbackUrl(config.upstreams.callbackBaseUrl, id),
          },
        }
      : {}),
  };
}

const KINDS: Record<KindId, ProviderKind> = {
  local: {
    id: 'local',
    upstream: false,
    worker: 'own',
    takesMapping: false,
    async adapter({ providerId, prisma, storage, config }) {
      const [{ createLocalAdapter }, { createInputFileReader }, { MAX_INPUT_IMAGE_BYTES }, { finishedAtOnce }] = await Promise.all([
        import('./local/adapter'),
        import('./inputFileReader'),
        import('./local/inputFiles'),
        import('./types'),
      ]);
      const readInput = createInputFileReader({
        uploads: { prisma, storage, publicBaseUrl: config.api.publicBaseUrl },
        allowPrivate: config.providers.inputFetchAllowPrivate,
        maxBytes: MAX_INPUT_IMAGE_BYTES,
        fetchTimeoutMs: 30_000,
      });
      return finishedAtOnce(providerId, createLocalAdapter({ failureInjection: config.providers.failureInjection, readInput }));
    },
  },
  http: {
    id: 'http',
    upstream: false,
    worker: 'own',
    takesMapping: false,
    async adapter({ providerId, config }) {
      const [{ createHttpAdapter }, { httpProviderConfigFromEnv }, { finishedAtOnce }] = await Promise.all([
        import('./http/adapter'),
        import('./http/config'),
        import('./types'),
      ]);
      const generator = createHttpAdapter(httpProviderConfigFromEnv(providerId), { allowPrivateOutputs: config.providers.inputFetchAllowPrivate });
      return finishedAtOnce(providerId, generator);
    },
  },
  cog: {
    id: 'cog',
    upstream: false,
    worker: 'cog',
    takesMapping: true,
    async adapter({ providerId, prisma, config }) {
      const [{ createCogAdapter }, { createCogPredictionStore }] = await Promise.all([import('./cog'), import('./cog/predictionStore')]);
      return createCogAdapter({
        providerId,
        store: createCogPredictionStore(prisma),
        requestTimeoutMs: config.upstreams.requestTimeoutMs,
        slotWaitMs: config.cog.slotWaitMs,
        missingGraceMs: config.cog.missingGraceMs,
        allowedNetworks: config.cog.allowedNetworks,
        tenantUrls: { allowPrivate: config.providers.inputFetchAllowPrivate },
      });
    },
    callbacks: {
      bodyLimitBytes: COG_CALLBACK_BODY_LIMIT,
      refusesReplays: false,
      takesUnknownGenerations: true,
      async verifier({ prisma }) {
        const [{ createCogCallbackVerifier }, { createCogPredictionStore }] = await Promise.all([import('./cog/webhooks'), import('./cog/predictionStore')]);
        return createCogCallbackVerifier(createCogPredictionStore(prisma));
      },
      url: (config) => `${config.cog.callbackBaseUrl}${COG_CALLBACK_PATH}`,
    },
  },
  maker: { id: 'maker', upstream: false, worker: 'none', takesMapping: false },
  ...(Object.fromEntries(UPSTREAM_IDS.map((id) => [id, upstreamKind(id)])) as Record<UpstreamId, ProviderKind>),
};

/** Every kind, as the catalog's `adapter` field takes them. */
export const KIND_IDS = Object.keys(KINDS) as [KindId, ...KindId[]];

export function isKindId(value: string): value is KindId {
  return Object.hasOwn(KINDS, value);
}

/** The kind a provider's `adapter` names; undefined for a name no kind has (the catalog refuses those). */
export function kindOf(adapter: string): ProviderKind | undefined {
  return isKindId(adapter) ? KINDS[adapter] : undefined;
}

/** Whether providers of this kind run jobs (a maker's models run on their routes). */
export function runsJobs(adapter: string): boolean {
  const worker = kindOf(adapter)?.worker;
  return worker !== undefined && worker !== 'none';
}

/** The kinds whose providers the given worker runs. */
export function kindsRunBy(worker: Exclude<KindWorker, 'none'>): KindId[] {
  return KIND_IDS.filter((id) => KINDS[id].worker === worker);
}

/** The kinds whose providers run jobs, on any worker. */
export function kindsThatRunJobs(): KindId[] {
  return KIND_IDS.filter((id) => runsJobs(id));
}
