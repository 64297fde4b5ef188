/**
 * What a client sees of a failed job: a stable code and a plain message. Every failure, whatever raised it, becomes
 * `{code, message}` here: a known code keeps its code and gets its fixed text; anything else (an S3 or database
 * failure, a library's exception) is INTERNAL_ERROR. The raw text (temp paths, upstream URLs, exception names, a
 * library's words) never reaches the job row; the caller logs it. Pure: safe to import from workflows.
 */
import type { JobError } from './jobs';

/** The fixed text of each code a failed job can carry. */
export const JOB_ERROR_MESSAGES: Readonly<Record<string, string>> = {
  PROVIDER_TIMEOUT: 'The provider did not finish in time',
  PROVIDER_RATE_LIMITED: 'The provider was over its rate limit and could not take the job',
  PROVIDER_UNAVAILABLE: 'The provider could not be reached or failed while generating',
  PROVIDER_REJECTED_INPUT: 'The provider refused the input',
  CONTENT_POLICY_VIOLATION: 'The provider refused the prompt or an input file on content-policy grounds',
  PROVIDER_AUTH_FAILED: 'The provider could not be used because of a configuration problem on our side',
  PROVIDER_JOB_FAILED: 'The provider reported the generation as failed',
  PROVIDER_CANCELLED: 'The provider cancelled the generation',
  INPUT_FETCH_FAILED: 'An input file could not be fetched',
  BAD_OUTPUT: 'The provider produced an output that is missing, of an unsupported type, too large or does not decode',
  INJECTED_FAILURE: 'The job failed on purpose, as a [fail:...] token in its prompt asked',
  UPSTREAM_OUTCOME_UNKNOWN:
    'The upstream may have started this generation but its answer was lost; the job was refunded instead of paying twice',
  JOB_ABANDONED: 'The job stopped before it finished; its charge was refunded',
  JOB_STATE_CONFLICT: 'The job was not in the state its provider expected',
  PROVIDER_ERROR: 'The provider failed',
  INTERNAL_ERROR: 'The job failed because of an internal error',
};

/**
 * The one message that carries a value: an input file the job names, by the URL the client gave. Built here and
 * recognised here, so nothing but that URL can ride along.
 */
const INPUT_FILE_PROBLEMS = {
  unreadable: 'could not be fetched',
  malformed: 'is not a valid URL',
} as const;

export type InputFileProblem = keyof typeof INPUT_FILE_PROBLEMS;

const INPUT_FILE_MESSAGE = new RegExp(`^input file (\\S+) (${Object.values(INPUT_FILE_PROBLEMS).join('|')})$`);

export function inputFileMessage(url: string, problem: InputFileProblem): string {
  return `input file ${url} ${INPUT_FILE_PROBLEMS[problem]}`;
}

/** The failure as the client sees it (job row, API, webhooks, events). */
export function publicJobError(raw: JobError): JobError {
  const fixed = JOB_ERROR_MESSAGES[raw.code];
  if (fixed === undefined) return { code: 'INTERNAL_ERROR', message: JOB_ERROR_MESSAGES.INTERNAL_ERROR };
  if (raw.code === 'INPUT_FETCH_FAILED' && INPUT_FILE_MESSAGE.test(raw.message)) return { code: raw.code, message: raw.message };
  return { code: raw.code, message: fixed };
}
