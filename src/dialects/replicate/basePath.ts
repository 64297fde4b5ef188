/** Where the Replicate dialect is served: its clients are given `<host>/replicate` as their base URL. */
export const REPLICATE_BASE_PATH = '/replicate/v1';
