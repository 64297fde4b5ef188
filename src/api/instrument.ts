/**
 * Imported first by the API entrypoint: tracing (when configured) must be installed before Express and pg load,
 * since its instrumentations patch them as they load.
 */
import { loadConfig } from '../config';
import { startTracing } from '../observability/tracing';

startTracing(loadConfig(), 'genmedia-api');
