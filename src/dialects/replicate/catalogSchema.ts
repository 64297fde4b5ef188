/**
 * The Replicate dialect's entry of a model in the catalog (`dialects.replicate` of a model file;
 * docs/compatible-apis.md) and the model name it gives. Read by the catalog, below the dialects, so it imports
 * nothing but zod: it belongs to the catalog's layer (.dependency-cruiser.cjs).
 */
import { z } from 'zod';

/**
 * How Replicate's clients name the model (docs/compatible-apis.md): `owner/name`, by default the slug's maker and
 * model (`motionworks/reel-2`). A maker with one model per capability under one name gives the others a name of
 * their own here, since an `owner/name` must name exactly one model.
 */
export const ReplicateDialectFile = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9.-]*\/[a-z0-9][a-z0-9._-]*$/, 'owner/name in lowercase').optional(),
});

export type ReplicateDialectDef = z.infer<typeof ReplicateDialectFile>;

/** The `owner/name` Replicate's clients use for a model: its catalog name, else the slug's maker and model. */
export function replicateModelName(slug: string, dialects: { replicate?: ReplicateDialectDef }): string {
  return dialects.replicate?.name ?? slug.split('/').slice(0, 2).join('/');
}
