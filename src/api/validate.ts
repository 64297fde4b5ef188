import type { z } from 'zod';
import { type ErrorCode } from '../shared/errors';
import { ApiError } from './apiError';

export interface FieldProblem {
  path: string;
  message: string;
}

export function zodProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
}

/** Problems spelt out in the error message; `details` lists more. */
const SUMMARIZED_PROBLEMS = 5;

/** Parses with a zod schema or throws `code` (VALIDATION_ERROR by default) listing every problem. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode = 'VALIDATION_ERROR',
  what = 'request',
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = zodProblems(result.error);
  const listed = problems.slice(0, SUMMARIZED_PROBLEMS).map((p) => `${p.path}: ${p.message}`);
  if (problems.length > SUMMARIZED_PROBLEMS) listed.push(`and ${problems.length - SUMMARIZED_PROBLEMS} more`);
  const summary = listed.join('; ');
  throw new ApiError(code, `Invalid ${what}: ${summary}`, problems);
}
