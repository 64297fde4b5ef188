/** The states of a model version in the catalog: taking jobs, taking them with a warning, refusing them, gone. */
export const VERSION_STATUSES = ['active', 'deprecated', 'disabled', 'deleted'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];
