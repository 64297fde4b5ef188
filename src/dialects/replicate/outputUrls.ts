/**
 * A prediction's output URLs are capability URLs, as Replicate's own are: apps fetch them with no credential
 * (`requests.get(str(output))`, `urlretrieve`), so each carries a `token` that opens that one output of that one job
 * until it expires. The token binds the job, the output's index and the job's account, under a key derived from the
 * service secret (JOBS_CURSOR_SECRET) for this purpose alone, so it is never valid as anything else. The API also
 * refuses it once the key that submitted the job, or its account, would be refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../shared/errors';
import { REPLICATE_BASE_PATH } from './basePath';

const PURPOSE = 'genmedia/replicate-output-url/v1';

export interface OutputUrlSigner {
  /** The output's URL, `<base URL>/predictions/{id}/outputs/{index}?token=<expiry>.<signature>`. */
  urlFor(job: { id: string; accountId: string }, index: number, now?: Date): string;
  /** Nothing when the token opens this output of this job now; UNAUTHORIZED when it is forged, for another output, or expired. */
  verify(job: { id: string; accountId: string }, index: number, token: string, now?: Date): void;
}

export function createOutputUrlSigner(options: { secret: string; baseUrl: string; ttlSeconds: number }): OutputUrlSigner {
  const key = createHmac('sha256', options.secret).update(PURPOSE).digest();
  const sign = (jobId: string, accountId: string, index: number, expires: number) =>
    createHmac('sha256', key).update(`${jobId}\n${accountId}\n${index}\n${expires}`).digest('base64url');

  return {
    urlFor(job, index, now = new Date()) {
      const expires = Math.floor(now.getTime() / 1000) + options.ttlSeconds;
      const token = `${expires}.${sign(job.id, job.accountId, index, expires)}`;
      return `${options.baseUrl}/predictions/${encodeURIComponent(job.id)}/outputs/${index}?token=${token}`;
    },

    verify(job, index, token, now = new Date()) {
      const dot = token.indexOf('.');
      const expires = dot > 0 && /^\d{1,12}$/.test(token.slice(0, dot)) ? Number(token.slice(0, dot)) : NaN;
      const expected = Buffer.from(Number.isSafeInteger(expires) ? sign(job.id, job.accountId, index, expires) : '');
      const given = Buffer.from(token.slice(dot + 1));
      if (expected.length === 0 || expected.length !== given.length || !timingSafeEqual(expected, given)) {
        throw new DomainError('UNAUTHORIZED', 'This output URL is not valid for this output; read the prediction again for its output URLs, or send an API key');
      }
      const expiresAt = new Date(expires * 1000);
      if (expiresAt.getTime() <= now.getTime()) {
        throw new DomainError('UNAUTHORIZED', 'This output URL has expired; read the prediction again for fresh output URLs, or send an API key', {
          expiredAt: expiresAt.toISOString(),
        });
      }
    },
  };
}

/** Where predictions point: the dialect's absolute base URL, and the signer of their output URLs. */
export interface PredictionUrls {
  /** `<public base URL>/replicate/v1`: prediction and output URLs start with it. */
  baseUrl: string;
  outputUrls: OutputUrlSigner;
}

/** This deployment's: PUBLIC_BASE_URL, JOBS_CURSOR_SECRET and jobs.outputUrlTtlSeconds (as the job's own output URLs). */
export function predictionUrlsFor(config: { api: { publicBaseUrl: string }; jobs: { cursorSecret: string; outputUrlTtlSeconds: number } }): PredictionUrls {
  const baseUrl = `${config.api.publicBaseUrl}${REPLICATE_BASE_PATH}`;
  return { baseUrl, outputUrls: createOutputUrlSigner({ secret: config.jobs.cursorSecret, baseUrl, ttlSeconds: config.jobs.outputUrlTtlSeconds }) };
}
