/** Where the Replicate dialect is mounted: Replicate's clients are given `<host>/replicate` as their base URL. */
export const REPLICATE_PREFIX = '/replicate/v1';
