import { CliError } from '../context';

/** A model version's input JSON Schema, as far as the CLI reads it. */
export interface InputSchema {
  properties?: Record<string, { type?: string | string[] }>;
}

/** `key=value` from `-i`/`--file`; the value may contain `=`. */
export function splitAssignment(text: string, flag: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new CliError('INVALID_ARGUMENTS', `${flag} expects key=value, got "${text}"`);
  return [text.slice(0, at), text.slice(at + 1)];
}

function typesOf(schema: InputSchema, key: string): string[] {
  const type = schema.properties?.[key]?.type;
  return type === undefined ? [] : Array.isArray(type) ? type : [type];
}

/**
 * The value of `-i key=value` as the model's input schema types it: `num_images=2` stays "2" where the schema says
 * string and becomes 2 where it says integer. Without a declared type, JSON is tried and the text kept otherwise.
 */
export function coerceInput(schema: InputSchema, key: string, raw: string): unknown {
  const types = typesOf(schema, key);
  if (types.includes('string') || (types.length === 0 && !looksLikeJson(raw))) return raw;
  if (types.includes('integer') || types.includes('number')) {
    const value = Number(raw);
    if (raw.trim() === '' || Number.isNaN(value)) throw new CliError('INVALID_ARGUMENTS', `${key} must be a number, got "${raw}"`);
    return value;
  }
  if (types.includes('boolean')) {
    if (/^(true|yes|1)$/i.test(raw)) return true;
    if (/^(false|no|0)$/i.test(raw)) return false;
    throw new CliError('INVALID_ARGUMENTS', `${key} must be true or false, got "${raw}"`);
  }
  try {
    return JSON.parse(raw);
  } catch {
    if (types.length === 0) return raw;
    throw new CliError('INVALID_ARGUMENTS', `${key} must be JSON (${types.join(' or ')}), got "${raw}"`);
  }
}

function looksLikeJson(raw: string): boolean {
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

/** Builds the job input from `--input-json`, then `-i` pairs on top of it. */
export function buildInput(schema: InputSchema, pairs: string[], json?: string): Record<string, unknown> {
  let input: Record<string, unknown> = {};
  if (json !== undefined) {
    const parsed = parseJsonObject(json);
    if (!parsed) throw new CliError('INVALID_ARGUMENTS', '--input-json must be a JSON object');
    input = parsed;
  }
  for (const pair of pairs) {
    const [key, raw] = splitAssignment(pair, '-i');
    input[key] = coerceInput(schema, key, raw);
  }
  return input;
}

/** Sets `key` to an uploaded file's URL; a key the schema types as an array collects every file given for it. */
export function assignFile(schema: InputSchema, input: Record<string, unknown>, key: string, fileUrl: string): void {
  if (!typesOf(schema, key).includes('array')) {
    input[key] = fileUrl;
    return;
  }
  const list = Array.isArray(input[key]) ? (input[key] as unknown[]) : [];
  input[key] = [...list, fileUrl];
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** Collects repeated options into a list (commander's accumulator). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
