import { MEDIA_KINDS, type MediaKind } from '../shared/media';

/**
 * Which kinds of media a string in a job input may reference, decided by:
 *  1. the schema annotation `"x-media": "image" | "video" | "audio"` (or an array of them) on the field, else
 *  2. the field name (for arrays, the array's name): names containing `image`, `video` or `audio`
 *     (`image_url`, `characterImages`, `video_url`, `audio_url`).
 * Null means no constraint is known.
 */
export interface MediaRequirement {
  kinds: MediaKind[];
  /** True when the schema says so explicitly: the value must then be a URL. */
  annotated: boolean;
}

export const MEDIA_ANNOTATION = 'x-media';

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function annotatedKinds(schema: unknown): MediaKind[] | null {
  if (!isObject(schema)) return null;
  const raw = schema[MEDIA_ANNOTATION];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const kinds = list.filter((k): k is MediaKind => (MEDIA_KINDS as readonly unknown[]).includes(k));
  return kinds.length > 0 ? kinds : null;
}

export function kindsFromFieldName(name: string | undefined): MediaKind[] | null {
  if (!name) return null;
  const lower = name.toLowerCase();
  const kinds = MEDIA_KINDS.filter((kind) => lower.includes(kind));
  return kinds.length > 0 ? kinds : null;
}

export function mediaRequirement(schema: unknown, fieldName: string | undefined): MediaRequirement | null {
  const annotated = annotatedKinds(schema);
  if (annotated) return { kinds: annotated, annotated: true };
  const named = kindsFromFieldName(fieldName);
  return named ? { kinds: named, annotated: false } : null;
}

/** Follows a local `$ref` (`#/...`) against the root schema. */
function resolve(root: unknown, schema: unknown, depth = 0): Schema | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#') || depth > 16) return schema;
  let target: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    target = isObject(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return resolve(root, target, depth + 1);
}

function combined(schema: Schema): Schema[] {
  return (['allOf', 'anyOf', 'oneOf'] as const).flatMap((k) =>
    Array.isArray(schema[k]) ? (schema[k] as unknown[]).filter(isObject) : [],
  );
}

/** The subschema that describes property `key` of an object described by `schema`. */
export function propertySchema(root: unknown, schema: unknown, key: string): Schema | undefined {
  const node = resolve(root, schema);
  if (!node) return undefined;
  const props = node.properties;
  if (isObject(props) && key in props) return resolve(root, props[key]);
  for (const sub of combined(node)) {
    const found = propertySchema(root, sub, key);
    if (found) return found;
  }
  return isObject(node.additionalProperties) ? resolve(root, node.additionalProperties) : undefined;
}

/** The subschema that describes item `index` of an array described by `schema`. */
export function itemSchema(root: unknown, schema: unknown, index: number): Schema | undefined {
  const node = resolve(root, schema);
  if (!node) return undefined;
  if (Array.isArray(node.prefixItems) && index < node.prefixItems.length) return resolve(root, node.prefixItems[index]);
  if (Array.isArray(node.items)) return resolve(root, node.items[index]);
  if (isObject(node.items)) return resolve(root, node.items);
  for (const sub of combined(node)) {
    const found = itemSchema(root, sub, index);
    if (found) return found;
  }
  return undefined;
}

export interface InputString {
  /** Location in the input, in the form `image_url`, `elements[0].characterImages[1]`. */
  path: string;
  value: string;
  requirement: MediaRequirement | null;
}

/** Every string in `input`, with the media requirement its place in the schema implies. */
export function inputStrings(input: unknown, rootSchema: unknown): InputString[] {
  const out: InputString[] = [];
  const visit = (value: unknown, schema: unknown, path: string, fieldName: string | undefined) => {
    if (typeof value === 'string') {
      out.push({ path, value, requirement: mediaRequirement(schema, fieldName) });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, itemSchema(rootSchema, schema, i), `${path}[${i}]`, fieldName));
    } else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        visit(child, propertySchema(rootSchema, schema, key), path ? `${path}.${key}` : key, key);
      }
    }
  };
  visit(input, resolve(rootSchema, rootSchema), '', undefined);
  return out;
}
