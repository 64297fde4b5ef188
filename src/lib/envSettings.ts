/**
 * Settings read from environment variables, each declared once: its variable, its zod schema (which holds the
 * default and the validation) and its description, at the place in a tree of declarations whose shape the values
 * take. The values' type is inferred from the same tree, so a setting is never written out a second time as a type
 * or as a mapping; docs/configuration.md is generated from the same declarations (scripts/docs/configuration.ts).
 */
import type { z } from 'zod';

/** How a setting is documented beyond its description. */
export interface SettingDocs {
  /**
   * The default as docs/configuration.md shows it, where the schema's default cannot say it as a value the variable
   * takes: a default that follows another setting or `NODE_ENV`, a path on this machine, a parsed list.
   */
  default?: string;
}

export class Setting<S extends z.ZodType = z.ZodType> {
  constructor(
    readonly variable: string,
    readonly schema: S,
    /** What the setting does, as docs/configuration.md says it (Markdown, links relative to docs/). */
    readonly description: string,
    readonly docs: SettingDocs = {},
  ) {}
}

/** A tree of declarations: each leaf a setting, each branch a group of fields. */
export interface SettingTree {
  readonly [field: string]: Setting | SettingTree;
}

/** The values a tree of declarations reads: the tree's shape, each setting replaced by its schema's output. */
export type SettingValues<T extends SettingTree> = {
  -readonly [K in keyof T]: T[K] extends Setting<infer S> ? z.output<S> : T[K] extends SettingTree ? SettingValues<T[K]> : never;
};

/** A setting read from `variable`, validated (and defaulted) by `schema`, documented by `description`. */
export function setting<S extends z.ZodType>(variable: string, schema: S, description: string, docs?: SettingDocs): Setting<S> {
  return new Setting(variable, schema, description, docs);
}

function isSetting(node: Setting | SettingTree): node is Setting {
  return node instanceof Setting;
}

/** Every setting of the tree with the dotted path of the field it fills, in declaration order. */
export function listSettings(tree: SettingTree, prefix = ''): { field: string; setting: Setting }[] {
  return Object.entries(tree).flatMap(([key, node]) =>
    isSetting(node) ? [{ field: `${prefix}${key}`, setting: node }] : listSettings(node, `${prefix}${key}.`),
  );
}

/** A value that does not pass its setting's schema, said as `VARIABLE: what is wrong`. */
export interface SettingProblem {
  variable: string;
  message: string;
}

/** Reads every setting of the tree from `source`; the problems name the variables that hold a wrong value. */
export function readSettings<T extends SettingTree>(
  tree: T,
  source: Readonly<Record<string, string | undefined>>,
): { values: SettingValues<T>; problems: SettingProblem[] } {
  const problems: SettingProblem[] = [];
  const read = (branch: SettingTree): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(branch).map(([key, node]) => {
        if (!isSetting(node)) return [key, read(node)];
        const parsed = node.schema.safeParse(source[node.variable]);
        if (parsed.success) return [key, parsed.data];
        for (const issue of parsed.error.issues) {
          const where = issue.path.length > 0 ? ` (${issue.path.join('.')})` : '';
          problems.push({ variable: node.variable, message: `${issue.message}${where}` });
        }
        return [key, undefined];
      }),
    );
  return { values: read(tree) as SettingValues<T>, problems };
}
