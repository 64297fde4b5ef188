/**
 * Turns our validated job input into an upstream's input, following the `upstream.input` template of a
 * catalog version. A template is JSON:
 *
 *   "$prompt"                       the value of our field `prompt` (dotted paths: "$a.b"); absent → key left out
 *   "square_hd", 4, true, null      a literal
 *   { "const": "$not-a-ref" }       a literal that would otherwise read as something else
 *   { "a": <t>, "b": <t> }          an object of templates (keys whose value is absent are left out)
 *   [<t>, <t>]                      an array of templates (absent items are left out)
 *   { "from": "<path>", ... }       a transformed field:
 *       "map":   {"16:9": "landscape_16_9"}     translate a value (a value not in the map is an error)
 *       "as":    "integer" | "number" | "string" | "boolean"
 *       "index": 0                              take one item of an array
 *       "each":  <t>                            map every item of an array; "$x" inside reads the item's field ("$value": the item itself when it is not an object)
 *       "flatten": true                         flatten one level (after "each")
 *       "file":  true                           the value (a URL, or an array of URLs) is a file to hand over
 *       "default": <literal>                    when the field is absent
 *   { "concat": [<t>, <t>] }        the values in order, arrays spliced in, absent ones left out
 *
 * Files become `InputFileRef`s; `prepareFiles` later swaps each for what the upstream needs.
 */

export class InputMappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputMappingError';
  }
}

/** A URL from our input that the upstream receives as a file. */
export class InputFileRef {
  constructor(readonly url: string) {}
}

const TRANSFORM_KEYS = new Set(['from', 'map', 'as', 'index', 'each', 'flatten', 'file', 'default']);

type Scope = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof InputFileRef);
}

function read(scope: unknown, path: string): unknown {
  let current: unknown = scope;
  for (const part of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

function convert(value: unknown, as: string, where: string): unknown {
  switch (as) {
    case 'integer': {
      const n = Number(value);
      if (!Number.isInteger(n)) throw new InputMappingError(`${where}: ${JSON.stringify(value)} is not an integer`);
      return n;
    }
    case 'number': {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new InputMappingError(`${where}: ${JSON.stringify(value)} is not a number`);
      return n;
    }
    case 'string':
      return String(value);
    case 'boolean':
      return value === true || value === 'true';
    default:
      throw new InputMappingError(`${where}: unknown conversion "${as}"`);
  }
}

function asFiles(value: unknown, where: string): unknown {
  if (typeof value === 'string') return new InputFileRef(value);
  if (Array.isArray(value)) return value.map((item) => asFiles(item, where));
  throw new InputMappingError(`${where}: a file must be a URL string`);
}

function transform(spec: Record<string, unknown>, scope: Scope, where: string): unknown {
  let value = read(scope, String(spec.from));
  if (value === undefined) value = spec.default;
  if (value === undefined) return undefined;
  if (spec.index !== undefined) {
    if (!Array.isArray(value)) throw new InputMappingError(`${where}: "${String(spec.from)}" is not an array`);
    value = value[Number(spec.index)];
    if (value === undefined) return undefined;
  }
  if (spec.each !== undefined) {
    if (!Array.isArray(value)) throw new InputMappingError(`${where}: "${String(spec.from)}" is not an array`);
    value = value.map((item, i) => apply(spec.each, isPlainObject(item) ? item : { value: item }, `${where}[${i}]`));
    value = (value as unknown[]).filter((item) => item !== undefined);
  }
  if (spec.flatten === true && Array.isArray(value)) value = value.flat();
  if (isPlainObject(spec.map)) {
    const key = String(value);
    if (!Object.hasOwn(spec.map, key)) throw new InputMappingError(`${where}: no mapping for value ${JSON.stringify(value)}`);
    value = spec.map[key];
  }
  if (typeof spec.as === 'string') value = Array.isArray(value) ? value.map((v) => convert(v, spec.as as string, where)) : convert(value, spec.as, where);
  if (spec.file === true) value = asFiles(value, where);
  return value;
}

function apply(template: unknown, scope: Scope, where: string): unknown {
  if (typeof template === 'string') return template.startsWith('$') ? read(scope, template.slice(1)) : template;
  if (Array.isArray(template)) {
    return template.map((item, i) => apply(item, scope, `${where}[${i}]`)).filter((item) => item !== undefined);
  }
  if (!isPlainObject(template)) return template;
  if ('const' in template && Object.keys(template).length === 1) return template.const;
  if (Array.isArray(template.concat) && Object.keys(template).length === 1) {
    const parts = template.concat.map((part, i) => apply(part, scope, `${where}.concat[${i}]`));
    const joined = parts.flatMap((part) => (part === undefined ? [] : Array.isArray(part) ? part : [part]));
    return joined.length > 0 ? joined : undefined;
  }
  if (typeof template.from === 'string' && Object.keys(template).every((key) => TRANSFORM_KEYS.has(key))) {
    return transform(template, scope, where);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    const mapped = apply(value, scope, where ? `${where}.${key}` : key);
    if (mapped !== undefined) out[key] = mapped;
  }
  return out;
}

/** Our input → the upstream's input, with files as `InputFileRef`s. */
export function mapInput(template: Record<string, unknown>, input: Record<string, unknown>): Record<string, unknown> {
  return apply(template, input, '') as Record<string, unknown>;
}

/** Every file the mapped input refers to, in order. */
export function fileRefsIn(value: unknown): InputFileRef[] {
  if (value instanceof InputFileRef) return [value];
  if (Array.isArray(value)) return value.flatMap(fileRefsIn);
  if (isPlainObject(value)) return Object.values(value).flatMap(fileRefsIn);
  return [];
}

/** Replaces every `InputFileRef` with what `prepare` makes of it (one call per distinct URL). */
export async function prepareFiles(value: unknown, prepare: (url: string) => Promise<unknown>): Promise<unknown> {
  const prepared = new Map<string, Promise<unknown>>();
  const swap = async (node: unknown): Promise<unknown> => {
    if (node instanceof InputFileRef) {
      let result = prepared.get(node.url);
      if (!result) {
        result = prepare(node.url);
        prepared.set(node.url, result);
      }
      return result;
    }
    if (Array.isArray(node)) return Promise.all(node.map(swap));
    if (isPlainObject(node)) {
      const entries = await Promise.all(Object.entries(node).map(async ([k, v]) => [k, await swap(v)] as const));
      return Object.fromEntries(entries);
    }
    return node;
  };
  return swap(value);
}
