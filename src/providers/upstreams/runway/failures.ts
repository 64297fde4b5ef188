/**
 * What Runway's answers mean in our codes: the HTTP errors of https://docs.dev.runwayml.com/errors/errors/
 * (a JSON body with a human-readable `error`) and the `failureCode` of a failed task,
 * https://docs.dev.runwayml.com/errors/task-failures/.
 */
import RunwayML from '@runwayml/sdk';
import { abortError } from '../../abort';
import { ProviderError } from '../../types';
import { errorForStatus, errorForTransport } from '../../errors';

/**
 * Failure codes of a problem on Runway's side (or its model vendor's) that Runway says may be retried: the
 * task failed, but a new one with the same input may well succeed.
 */
const TRANSIENT_FAILURES = new Set(['INTERNAL', 'INPUT_PREPROCESSING.INTERNAL', 'THIRD_PARTY.UNAVAILABLE']);

/**
 * A failed task, by its failure code: `SAFETY.INPUT.*`, `SAFETY.OUTPUT.*` and `INPUT_PREPROCESSING.SAFETY.*` are
 * content moderation (not to be retried); `ASSET.INVALID` and other `INPUT_PREPROCESSING.*` refuse the input;
 * `INTERNAL`, `INPUT_PREPROCESSING.INTERNAL` and `THIRD_PARTY.UNAVAILABLE` may be retried;
 * `INTERNAL.BAD_OUTPUT.*` (retrying "not likely to succeed"), unknown or absent codes fail the generation.
 */
export function taskFailure(taskId: string, failure: string | undefined, failureCode: string | undefined): ProviderError {
  const code = failureCode?.trim().toUpperCase() ?? '';
  const reason = failure?.trim().slice(0, 300) || 'no reason given';
  const message = `Runway task ${taskId} failed${code ? ` (${code})` : ''}: ${reason}`;
  const segments = code.split('.');
  if (segments.includes('SAFETY')) return new ProviderError('CONTENT_POLICY_VIOLATION', message, { retryable: false });
  if (TRANSIENT_FAILURES.has(code)) return new ProviderError('PROVIDER_UNAVAILABLE', message, { retryable: true });
  if (segments[0] === 'ASSET' || segments[0] === 'INPUT_PREPROCESSING') {
    return new ProviderError('PROVIDER_REJECTED_INPUT', message, { retryable: false });
  }
  return new ProviderError('PROVIDER_JOB_FAILED', message, { retryable: false });
}

/** The text of Runway's error body (`{"error": "..."}`), or the SDK's message when the body is something else. */
function detailOf(error: InstanceType<typeof RunwayML.APIError>): string {
  const body = error.error as { error?: unknown } | string | undefined;
  if (typeof body === 'string') return body.slice(0, 300);
  if (body && typeof body.error === 'string') return body.error;
  return error.message;
}

/**
 * A failed call to Runway, in our codes. A call without an answer is PROVIDER_UNAVAILABLE only when the connection
 * could not be made; a timeout or a connection that broke after sending is PROVIDER_TIMEOUT, which for the create
 * means Runway may have started the task (errorForTransport).
 */
export function callFailure(what: string, error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof RunwayML.APIError && typeof error.status === 'number') {
    return errorForStatus(`Runway ${what}`, error.status, detailOf(error), error.headers?.get('retry-after'));
  }
  return errorForTransport(`Runway ${what}`, error);
}
