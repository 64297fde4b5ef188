/**
 * What a client sees of a failed job: a stable code and a plain message. Every failure, whatever raised it, becomes
 * `{code, message}` here: a known code keeps its code and gets its fixed text; anything else (an S3 or database
 * failure, a library's exception) is INTERNAL_ERROR. The raw text (temp paths, upstream URLs, exception names, a
 * library's words) never reaches the job row; the caller logs it. Pure: safe to import from workflows.
 */
import { FAILURE_RULES, failureCodes } from './failureCodes';
import type { JobError } from './jobs';

/** The fixed text of each code a failed job can carry. */
export const JOB_ERROR_MESSAGES: Readonly<Record<string, string>> = Object.fromEntries(
  failureCodes('job').map((code) => [code, FAILURE_RULES[code].message]),
);

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
