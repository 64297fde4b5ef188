/**
 * A model version's input JSON Schema turned into form fields: enums become selects, booleans toggles, strings text
 * boxes with length counters, media URLs uploads (the API's own rule for which strings are files), arrays of objects
 * repeatable groups. What the form does not know is shown as a JSON box, so any schema can still be submitted.
 */
import { mediaRequirement } from '../../../src/uploads/mediaFields';
import { UPLOAD_CONTENT_TYPES, type MediaKind } from '../../../src/shared/media';
import { humanize } from '../format';

type Schema = Record<string, unknown>;

export type FieldSpec =
  | { kind: 'text'; multiline: boolean; minLength?: number; maxLength?: number }
  | { kind: 'select'; options: string[] }
  | { kind: 'toggle' }
  | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number }
  | { kind: 'file'; media: MediaKind[]; accept: string }
  | { kind: 'list'; item: FieldSpec; itemSchema: Schema; minItems: number; maxItems?: number }
  | { kind: 'group'; fields: Field[] }
  | { kind: 'json' };

export interface Field {
  name: string;
  label: string;
  description?: string;
  required: boolean;
  default?: unknown;
  spec: FieldSpec;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

export function acceptFor(kinds: MediaKind[]): string {
  return UPLOAD_CONTENT_TYPES.filter((type) => kinds.some((kind) => type.startsWith(`${kind}/`))).join(',');
}

export function specOf(schema: Schema, fieldName: string): FieldSpec {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    return { kind: 'select', options: schema.enum as string[] };
  }
  switch (schema.type) {
    case 'boolean':
      return { kind: 'toggle' };
    case 'integer':
    case 'number':
      return { kind: 'number', integer: schema.type === 'integer', minimum: num(schema.minimum), maximum: num(schema.maximum) };
    case 'string': {
      const media = mediaRequirement(schema, fieldName);
      if (media && (schema.format === 'uri' || media.annotated)) return { kind: 'file', media: media.kinds, accept: acceptFor(media.kinds) };
      const maxLength = num(schema.maxLength);
      return { kind: 'text', multiline: (maxLength ?? 0) > 200, minLength: num(schema.minLength), maxLength };
    }
    case 'array': {
      const items = isObject(schema.items) ? schema.items : null;
      if (!items) return { kind: 'json' };
      return { kind: 'list', item: specOf(items, fieldName), itemSchema: items, minItems: num(schema.minItems) ?? 0, maxItems: num(schema.maxItems) };
    }
    case 'object':
      return { kind: 'group', fields: fieldsOf(schema) };
    default:
      return { kind: 'json' };
  }
}

/** The fields of an object schema, required ones first, in schema order otherwise. */
export function fieldsOf(schema: Schema): Field[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(properties)
    .filter((entry): entry is [string, Schema] => isObject(entry[1]))
    .map(([name, property]) => ({
      name,
      label: typeof property.title === 'string' ? property.title : humanize(name),
      description: typeof property.description === 'string' ? property.description : undefined,
      required: required.has(name),
      default: property.default,
      spec: specOf(property, name),
    }));
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

/** A starting value: defaults filled in, required lists and groups at their minimum length. */
export function initialValue(spec: FieldSpec, fallback?: unknown): unknown {
  if (fallback !== undefined) return fallback;
  switch (spec.kind) {
    case 'group': {
      const out: Record<string, unknown> = {};
      for (const field of spec.fields) {
        const value = field.required || field.default !== undefined ? initialValue(field.spec, field.default) : undefined;
        if (value !== undefined) out[field.name] = value;
      }
      return out;
    }
    case 'list':
      return Array.from({ length: Math.max(spec.minItems, 0) }, () => initialValue(spec.item));
    case 'select':
      return spec.options[0];
    case 'toggle':
      return false;
    case 'text':
    case 'file':
      return '';
    default:
      return undefined;
  }
}

/**
 * The input to send: empty optional text dropped (the API would refuse "" where a minimum length applies), and
 * nothing else changed, so what the estimate prices is exactly what submit charges.
 */
export function cleanInput(fields: Field[], value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const v = value[field.name];
    if (v === undefined) continue;
    if (v === '' && !field.required) continue;
    out[field.name] = field.spec.kind === 'group' && isObject(v) ? cleanInput(field.spec.fields, v) : cleanList(field.spec, v);
  }
  return out;
}

function cleanList(spec: FieldSpec, value: unknown): unknown {
  if (spec.kind !== 'list' || !Array.isArray(value)) return value;
  const item = spec.item;
  return value.map((v) => (item.kind === 'group' && isObject(v) ? cleanInput(item.fields, v) : v));
}

/** Paths of required fields still empty: the price is asked for only once there are none. */
export function missingRequired(fields: Field[], value: Record<string, unknown>, path = ''): string[] {
  const missing: string[] = [];
  for (const field of fields) {
    const at = path ? `${path}.${field.name}` : field.name;
    const v = value[field.name];
    if (field.required && (v === undefined || v === '')) missing.push(at);
    else if (field.spec.kind === 'group' && isObject(v)) missing.push(...missingRequired(field.spec.fields, v, at));
    else if (field.spec.kind === 'list' && Array.isArray(v)) {
      const item = field.spec.item;
      v.forEach((entry, i) => {
        if (item.kind === 'group' && isObject(entry)) missing.push(...missingRequired(item.fields, entry, `${at}[${i}]`));
        else if ((item.kind === 'text' || item.kind === 'file') && entry === '') missing.push(`${at}[${i}]`);
      });
    }
  }
  return missing;
}
