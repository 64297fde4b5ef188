/**
 * Signed, read-only URLs of one job's events, for a browser's `EventSource`, which cannot send `Authorization`: a
 * customer's page follows a job without holding an API key. The token binds the job and its account until it
 * expires, and opens that job's events and nothing else; the API also refuses it once the key that submitted the
 * job, or its account, would be refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../shared/errors';

/** Keys derived from the service secret for this one purpose, so a token is never valid as anything else. */
const PURPOSE = 'genmedia/job-events-url/v1';

export interface EventsUrl {
  url: string;
  expiresAt: Date;
}

/** What a valid token says: whose job it opens, and until when. */
export interface VerifiedEventsUrl {
  accountId: string;
  expiresAt: Date;
}

export interface EventsUrlSigner {
  urlFor(job: { jobId: string; accountId: string }, now?: Date): EventsUrl;
  /** The account of the job the token opens, and its expiry; UNAUTHORIZED when it is forged, for another job, or expired. */
  verify(jobId: string, token: string, now?: Date): VerifiedEventsUrl;
}

export function createEventsUrlSigner(options: { secret: string; publicBaseUrl: string; ttlSeconds: number }): EventsUrlSigner {
  const key = createHmac('sha256', options.secret).update(PURPOSE).digest();
  const sign = (jobId: string, accountId: string, expires: number) =>
    createHmac('sha256', key).update(`${jobId}\n${accountId}\n${expires}`).digest('base64url');
  const base = options.publicBaseUrl.replace(/\/$/, '');

  return {
    urlFor({ jobId, accountId }, now = new Date()) {
      const expires = Math.floor(now.getTime() / 1000) + options.ttlSeconds;
      const token = `${expires}.${accountId}.${sign(jobId, accountId, expires)}`;
      return {
        url: `${base}/v1/jobs/${encodeURIComponent(jobId)}/events?token=${encodeURIComponent(token)}`,
        expiresAt: new Date(expires * 1000),
      };
    },

    verify(jobId, token, now = new Date()) {
      const parts = token.split('.');
      const expires = Number(parts[0]);
      const signature = parts.at(-1) ?? '';
      const accountId = parts.slice(1, -1).join('.');
      const expected = Buffer.from(Number.isSafeInteger(expires) && accountId ? sign(jobId, accountId, expires) : '');
      const given = Buffer.from(signature);
      if (parts.length < 3 || expected.length === 0 || expected.length !== given.length || !timingSafeEqual(expected, given)) {
        throw new DomainError('UNAUTHORIZED', 'This events URL is not valid for this job');
      }
      const expiresAt = new Date(expires * 1000);
      if (expiresAt.getTime() <= now.getTime()) {
        throw new DomainError('UNAUTHORIZED', 'This events URL has expired; read the job again for a fresh eventsUrl', { expiredAt: expiresAt.toISOString() });
      }
      return { accountId, expiresAt };
    },
  };
}

/** The signer of this deployment: its public address, its secret (JOBS_CURSOR_SECRET) and jobs.eventsUrlTtlSeconds. */
export function eventsUrlSignerFor(config: {
  api: { publicBaseUrl: string };
  jobs: { cursorSecret: string; eventsUrlTtlSeconds: number };
}): EventsUrlSigner {
  return createEventsUrlSigner({ secret: config.jobs.cursorSecret, publicBaseUrl: config.api.publicBaseUrl, ttlSeconds: config.jobs.eventsUrlTtlSeconds });
}
