/** Where the Replicate dialect is mounted: Replicate's clients are given `<host>/replicate` as their base URL. */
export { REPLICATE_BASE_PATH as REPLICATE_PREFIX } from '../../../dialects/replicate/basePath';
