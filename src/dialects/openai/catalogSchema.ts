/**
 * The OpenAI dialect's entry of a model in the catalog (`dialects.openai` of a model file; docs/compatible-apis.md)
 * and the checks the catalog runs on it when it loads. Read by the catalog, below the dialects, so it imports nothing
 * but zod and the schema checker: it belongs to the catalog's layer (.dependency-cruiser.cjs).
 */
import { z } from 'zod';
import type { createSchemaAjv } from '../../domain/inputValidation';

/** Input fields a dialect's value sets, e.g. OpenAI's `size: "1024x1024"` → `{ "size": "square_hd" }`. */
const InputPatch = z.record(z.string(), z.unknown());

/**
 * How OpenAI's Images API reaches the model (docs/compatible-apis.md). `aliases` are extra model names (such as
 * `gpt-image-1`), unique across the catalog; `sizes` and `qualities` list the only values accepted, each with the
 * input it sets; `count` is the input field that makes up to `max` images in one job (without it, `n` makes `n` jobs).
 */
export const OpenAiDialectFile = z.strictObject({
  aliases: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'letters, digits and . _ : / -')).default([]),
  images: z
    .strictObject({
      sizes: z.record(z.string().regex(/^\d+x\d+$/, 'WIDTHxHEIGHT'), InputPatch).default({}),
      qualities: z.record(z.string().min(1), InputPatch).default({}),
      count: z
        .strictObject({
          field: z.string().min(1),
          /** How the schema wants the number: `"2"` for a string enum, 2 for an integer. */
          as: z.enum(['integer', 'string']).default('integer'),
          max: z.number().int().positive(),
        })
        .optional(),
    })
    .optional(),
  /**
   * How `POST /images/edits` hands its files to the model: `images.field` takes the images (one URL, or with `list`
   * a list of up to `max`, each a URL or, with `item`, an object whose `item` field is the URL); `mask.field` takes
   * the mask. Size, quality and `n` map as for generation (`images`).
   */
  edits: z
    .strictObject({
      images: z.strictObject({
        field: z.string().min(1),
        list: z.boolean().default(false),
        item: z.string().min(1).optional(),
        max: z.number().int().positive().default(1),
      }),
      mask: z.strictObject({ field: z.string().min(1) }).optional(),
    })
    .optional(),
  /**
   * How `POST /videos` reaches the model: `seconds` and `sizes` list the only values accepted, each with the input
   * it sets; `inputReference.field` takes the reference image (`required` when the model cannot start without one).
   */
  videos: z
    .strictObject({
      seconds: z.record(z.string().regex(/^\d+$/, 'whole seconds'), InputPatch).default({}),
      sizes: z.record(z.string().regex(/^\d+x\d+$/, 'WIDTHxHEIGHT'), InputPatch).default({}),
      inputReference: z.strictObject({ field: z.string().min(1), required: z.boolean().default(false) }).optional(),
    })
    .optional(),
});

export type OpenAiDialectDef = z.infer<typeof OpenAiDialectFile>;

/** The names OpenAI clients may use for a model: its slug, then its aliases. */
export function openAiModelNames(slug: string, openAi: OpenAiDialectDef | undefined): string[] {
  return [slug, ...(openAi?.aliases ?? [])];
}

/** The problems of a model's OpenAI entry against one of its versions' input. */
export function checkOpenAiVersion(
  ajv: ReturnType<typeof createSchemaAjv>,
  openAi: OpenAiDialectDef | undefined,
  inputSchema: Record<string, unknown>,
  where: string,
): string[] {
  return [...checkOpenAiImages(ajv, openAi?.images, inputSchema, where), ...checkOpenAiMedia(ajv, openAi, inputSchema, where)];
}

/** Each value the OpenAI mapping sets must be one the version's input accepts, so a mapped request is never refused. */
function checkOpenAiImages(
  ajv: ReturnType<typeof createSchemaAjv>,
  images: OpenAiDialectDef['images'],
  inputSchema: Record<string, unknown>,
  where: string,
): string[] {
  if (!images) return [];
  const problems: string[] = [];
  const properties = (inputSchema.properties ?? {}) as Record<string, object>;
  // Checked as a field of an object: a field's schema alone would carry its `default` at the root, which Ajv refuses.
  const accepts = (field: string, value: unknown) => ajv.validate({ type: 'object', properties: { [field]: properties[field] } }, { [field]: value });
  const patches = [...Object.entries(images.sizes).map(([k, v]) => [`size ${k}`, v] as const), ...Object.entries(images.qualities).map(([k, v]) => [`quality ${k}`, v] as const)];
  for (const [what, patch] of patches) {
    for (const [field, value] of Object.entries(patch)) {
      const property = properties[field];
      if (!property) problems.push(`${where}: OpenAI ${what} sets ${field}, which is not an input field`);
      else if (!accepts(field, value)) problems.push(`${where}: OpenAI ${what} sets ${field} to ${JSON.stringify(value)}, which the input refuses`);
    }
  }
  const count = images.count;
  if (count && !properties[count.field]) problems.push(`${where}: OpenAI count field ${count.field} is not an input field`);
  else if (count && !accepts(count.field, count.as === 'string' ? String(count.max) : count.max)) {
    problems.push(`${where}: OpenAI count field ${count.field} refuses its max ${count.max} (as ${count.as})`);
  }
  return problems;
}

/** The fields an edit or a video request fills must be input fields, and every value a video mapping sets accepted. */
function checkOpenAiMedia(
  ajv: ReturnType<typeof createSchemaAjv>,
  openAi: OpenAiDialectDef | undefined,
  inputSchema: Record<string, unknown>,
  where: string,
): string[] {
  const problems: string[] = [];
  const properties = (inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const accepts = (field: string, value: unknown) => ajv.validate({ type: 'object', properties: { [field]: properties[field] } }, { [field]: value });
  const edits = openAi?.edits;
  if (edits) {
    const images = properties[edits.images.field];
    if (!images) problems.push(`${where}: OpenAI edits put images into ${edits.images.field}, which is not an input field`);
    else if ((images.type === 'array') !== edits.images.list) problems.push(`${where}: OpenAI edits: ${edits.images.field} is ${edits.images.list ? 'not ' : ''}a list`);
    if (!edits.images.list && edits.images.max !== 1) problems.push(`${where}: OpenAI edits: a single image field takes at most 1 image`);
    if (edits.mask && !properties[edits.mask.field]) problems.push(`${where}: OpenAI edits put the mask into ${edits.mask.field}, which is not an input field`);
  }
  const videos = openAi?.videos;
  if (videos) {
    const patches = [...Object.entries(videos.seconds).map(([k, v]) => [`seconds ${k}`, v] as const), ...Object.entries(videos.sizes).map(([k, v]) => [`video size ${k}`, v] as const)];
    for (const [what, patch] of patches) {
      for (const [field, value] of Object.entries(patch)) {
        if (!properties[field]) problems.push(`${where}: OpenAI ${what} sets ${field}, which is not an input field`);
        else if (!accepts(field, value)) problems.push(`${where}: OpenAI ${what} sets ${field} to ${JSON.stringify(value)}, which the input refuses`);
      }
    }
    if (videos.inputReference && !properties[videos.inputReference.field]) {
      problems.push(`${where}: OpenAI videos put input_reference into ${videos.inputReference.field}, which is not an input field`);
    }
    const reference = videos.inputReference;
    const required = new Set(requiredFields(inputSchema));
    if (reference && required.has(reference.field) && !reference.required) {
      problems.push(`${where}: OpenAI videos: ${reference.field} is required by the input, so inputReference must be required`);
    }
    const unfilled = videoFieldsUnfilled(inputSchema, reference?.field ?? null);
    if (unfilled.length > 0) problems.push(`${where}: OpenAI videos cannot fill the required input ${unfilled.join(', ')}: such a model takes no video mapping`);
  }
  return problems;
}

function requiredFields(inputSchema: Record<string, unknown>): string[] {
  return Array.isArray(inputSchema.required) ? inputSchema.required.filter((field): field is string => typeof field === 'string') : [];
}

/**
 * The required input fields that OpenAI's `videos.create` cannot fill: every one but `prompt` and the field its one
 * `input_reference` image goes into (`referenceField`; null: the first required field that takes a URL, if any).
 * A video model with none is one the OpenAI videos dialect can serve; one with some (a list of elements) cannot.
 */
export function videoFieldsUnfilled(inputSchema: Record<string, unknown>, referenceField: string | null): string[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, { type?: unknown; format?: unknown }>;
  const required = requiredFields(inputSchema);
  const reference = referenceField ?? required.find((field) => properties[field]?.type === 'string' && properties[field]?.format === 'uri');
  return required.filter((field) => field !== 'prompt' && field !== reference);
}
