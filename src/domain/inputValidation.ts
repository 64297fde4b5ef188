/**
 * Validation of model-specific `input` against a version's JSON Schema (Ajv, draft-07 vocabulary).
 * Defaults from the schema are applied to a copy of the input; every failing path is reported.
 * Compiled validators are cached by the schema's serialized form, since schemas arrive as fresh
 * objects from the database on every request.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { linearRegExpEngine } from './linearRegExp';

export interface InputError {
  /** Location in the input: `prompt`, `elements[0].type`; empty for the input itself. */
  path: string;
  message: string;
}

export type InputValidationResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; errors: InputError[] };

/**
 * Ajv configured the way every model schema is checked: strict schemas, all errors, defaults applied, and patterns
 * run by a linear-time engine (linearRegExp.ts; a pattern it cannot run makes the schema fail to compile).
 */
export function createSchemaAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, code: { regExp: linearRegExpEngine } });
  addFormats(ajv);
  // Annotation only: the media kind a URL field needs ("image" | "video" | "audio"), read by the upload checks.
  ajv.addKeyword({ keyword: 'x-media', schemaType: ['string', 'array'] });
  return ajv;
}

const ajv = createSchemaAjv();
const MAX_CACHED_VALIDATORS = 500;
const validators = new Map<string, ValidateFunction>();

/** Compiles (or reuses) a validator. Throws if the schema itself is invalid. */
export function compileInputSchema(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    if (validators.size >= MAX_CACHED_VALIDATORS) validators.clear();
    validate = ajv.compile(structuredClone(schema));
    validators.set(key, validate);
  }
  return validate;
}

export function validateInput(schema: object, input: unknown): InputValidationResult {
  // An array past its maxItems is wrong whatever its items hold: say so once instead of checking every item.
  const oversize = oversizeArrays(schema as SchemaNode, input, '');
  if (oversize.length > 0) return { ok: false, errors: oversize };
  const unprintable = controlCharacters(input, '');
  if (unprintable.length > 0) return { ok: false, errors: unprintable };
  const validate = compileInputSchema(schema);
  const value = input === undefined ? {} : structuredClone(input);
  if (validate(value)) {
    if (!isPlainObject(value)) return { ok: false, errors: [{ path: '', message: 'must be an object' }] };
    return { ok: true, value };
  }
  return { ok: false, errors: toInputErrors(validate.errors ?? []) };
}

/**
 * The input with schema defaults filled in, without requiring it to be valid. Used to price an
 * estimate whose input is partial (for example no prompt yet). Non-objects become `{}`.
 */
export function withDefaults(schema: object, input: unknown): Record<string, unknown> {
  const value = isPlainObject(input) ? structuredClone(input) : {};
  compileInputSchema(schema)(value);
  return value;
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  maxItems?: number;
}

/** Arrays longer than their schema's maxItems, following the schema's properties and items. */
function oversizeArrays(schema: SchemaNode | undefined, value: unknown, path: string): InputError[] {
  if (!schema || typeof schema !== 'object') return [];
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return [{ path, message: `must NOT have more than ${schema.maxItems} items (has ${value.length})` }];
    }
    return value.flatMap((item, i) => oversizeArrays(schema.items, item, `${path}[${i}]`));
  }
  if (!isPlainObject(value) || !schema.properties) return [];
  return Object.entries(schema.properties).flatMap(([key, inner]) => oversizeArrays(inner, value[key], join(path, key)));
}

/** C0 controls but tab, newline and carriage return; DEL; C1 controls; the noncharacters U+FFFE and U+FFFF. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]/;

/** Text no prompt needs and no renderer or upstream takes well: every string (and key) holding one. */
function controlCharacters(value: unknown, path: string): InputError[] {
  if (typeof value === 'string') {
    const found = CONTROL_CHARACTER.exec(value)?.[0];
    if (found === undefined) return [];
    const codePoint = found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return [{ path, message: `must not contain control characters (U+${codePoint})` }];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => controlCharacters(item, `${path}[${i}]`));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    CONTROL_CHARACTER.test(key) ? [{ path: join(path, key), message: 'field name must not contain control characters' }] : controlCharacters(inner, join(path, key)),
  );
}

function toInputErrors(errors: ErrorObject[]): InputError[] {
  const seen = new Set<string>();
  const out: InputError[] = [];
  for (const error of errors) {
    const entry = toInputError(error);
    const key = `${entry.path}\n${entry.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(entry);
    }
  }
  return out;
}

function toInputError(error: ErrorObject): InputError {
  const base = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: join(base, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: join(base, String(params.additionalProperty)), message: 'is not an allowed field' };
    case 'enum':
      return {
        path: base,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path: base, message: error.message ?? 'is invalid' };
  }
}

/** `/elements/0/type` → `elements[0].type` */
function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^[0-9]+$/.test(segment) ? `${path}[${segment}]` : join(path, segment)), '');
}

function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
