/**
 * Tuning: the timeouts, intervals, limits, windows and retry counts of a feature, which a deployment does not set.
 * Each feature declares its own, with their defaults and their bounds, in its folder (`src/webhooks/tuning.ts`, ...);
 * src/config.ts gathers them (TUNING) into the configuration, where the feature reads them beside its settings
 * (`config.webhooks.timeoutMs`). They are not read from the environment: a test gives other values to the
 * configuration it loads (`loadConfig(env, { tuning })`, test/support/stack.ts), and to the processes it spawns through
 * one file (GENMEDIA_TEST_TUNING), which a production process refuses.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** A feature's tuning: its values with their defaults; an override names only the ones it changes, and no other. */
export function tuning<S extends z.ZodRawShape>(shape: S) {
  // Every value has its default, so an absent branch is an empty one.
  return z.strictObject(shape).prefault({} as never);
}

/** Whole milliseconds, seconds or counts above zero. */
export const positiveInt = z.number().int().positive();
/** A share or a duration above zero. */
export const positive = z.number().positive();

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `override` on top of `base`, branch by branch (a list replaces a list). */
export function mergeTuning<T>(base: T, override: unknown): T {
  if (!isPlain(base) || !isPlain(override)) return (override === undefined ? base : override) as T;
  const merged: Plain = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = mergeTuning(merged[key], value);
  return merged as T;
}

/** The values of `schema`'s shape picked out of `values` (a configuration that holds them among its settings). */
export function pickTuning(schema: z.ZodType, values: unknown): unknown {
  const shape = objectShape(schema);
  if (!shape || !isPlain(values)) return values;
  return Object.fromEntries(Object.keys(shape).map((key) => [key, pickTuning(shape[key]!, values[key])]));
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let inner: unknown = schema;
  // prefault and default wrap the object; their inner type holds the shape.
  while (inner instanceof z.ZodPrefault || inner instanceof z.ZodDefault) inner = inner.def.innerType;
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : undefined;
}

export class TuningError extends Error {}

/** Validates `override` against `schema` and fills the rest with the defaults; a problem names the value's path. */
export function parseTuning<S extends z.ZodType>(schema: S, override: unknown, source: string): z.output<S> {
  const parsed = schema.safeParse(override ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new TuningError(`Invalid tuning (${source}): ${problems.join('; ')}`);
}

/** The override a test wrote to `file` (JSON) for the processes it spawns. */
export function readTuningFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TuningError(`Invalid tuning: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new TuningError(`Invalid tuning: ${file} is not JSON (${(err as Error).message})`);
  }
}
