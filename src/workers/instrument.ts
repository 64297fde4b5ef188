/** Imported first by the worker entrypoint: tracing (when configured) is installed before pg and undici load. */
import { loadConfig } from '../config';
import { startTracing } from '../observability/tracing';

startTracing(loadConfig(), 'genmedia-worker');
