/**
 * The OpenTelemetry SDK side of tracing.ts, loaded only when tracing is on (its modules cost memory in every process
 * that loads them).
 */
import type { Context, SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { Config } from '../config';
import type { Tracing } from './tracingHandle';
import { redactingSpanProcessor, redactSpan, type Buckets } from './traceRedaction';

/** Requests that would only add noise to traces: scrapes and probes. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz']);

/**
 * Installs the tracer provider, the instrumentations and the Temporal interceptors; `spanProcessor` or the configured
 * exporter. Every span is redacted first (traceRedaction.ts): no file id or object key of `config.minio`'s buckets.
 */
export function installTracing(config: Pick<Config, 'observability' | 'minio'>, serviceName: string, spanProcessor?: SpanProcessor): Tracing | undefined {
  const processor = spanProcessor ?? configuredProcessor(config.observability.traces);
  if (!processor) return undefined;

  const buckets = [config.minio.uploadsBucket, config.minio.outputsBucket];
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.observability.serviceName ?? serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [redactingSpanProcessor(buckets), processor] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]) }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new UndiciInstrumentation(),
    ],
  });
  return {
    enabled: true,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    workerInterceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    workerSinks: { exporter: makeWorkflowExporter(sandboxSpanProcessor(processor, buckets) as never, resource as never) },
    shutdown: () => provider.shutdown(),
  };
}

function configuredProcessor(traces: Config['observability']['traces']): SpanProcessor | undefined {
  // The OTLP exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT and _HEADERS itself.
  if (traces === 'otlp') return new BatchSpanProcessor(new OTLPTraceExporter());
  if (traces === 'console') return new SimpleSpanProcessor(new ConsoleSpanExporter());
  return undefined;
}

/** A span as workflow code serializes it: the 1.x SDK's shape the Temporal interceptors are built on. */
interface SandboxSpan {
  spanContext(): SpanContext;
  parentSpanId?: string;
  instrumentationLibrary?: { name: string; version?: string; schemaUrl?: string };
}

/**
 * Workflow spans reach the worker in the 1.x SDK's shape (`parentSpanId`, `instrumentationLibrary`); the 2.x
 * processors and exporters read `parentSpanContext` and `instrumentationScope`. This adds the 2.x fields, and redacts
 * them as the provider's own spans are (they end in the sandbox, so no `onEnding` runs for them).
 */
function sandboxSpanProcessor(processor: SpanProcessor, buckets: Buckets): SpanProcessor {
  return {
    onStart: (span: Span, context: Context) => processor.onStart(span, context),
    onEnd(span: ReadableSpan) {
      const sandbox = span as unknown as SandboxSpan & ReadableSpan;
      const own = sandbox.spanContext();
      const parentSpanContext = sandbox.parentSpanContext ??
        (sandbox.parentSpanId ? { traceId: own.traceId, spanId: sandbox.parentSpanId, traceFlags: own.traceFlags } : undefined);
      const instrumentationScope = sandbox.instrumentationScope ?? sandbox.instrumentationLibrary ?? { name: '@temporalio/interceptors-opentelemetry' };
      const completed = Object.assign(sandbox, { parentSpanContext, instrumentationScope });
      redactSpan(completed as unknown as Parameters<typeof redactSpan>[0], buckets);
      processor.onEnd(completed);
    },
    forceFlush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
}
