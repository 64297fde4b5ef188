/**
 * OpenTelemetry tracing: one trace per submit, from the HTTP request through Update-with-Start, the job workflow and
 * its activities to the provider and the webhook delivery. Off unless an OTLP endpoint (or the console exporter) is
 * configured; when off nothing is installed and nothing is paid for.
 *
 * Call `startTracing` before Express, pg or undici are loaded: the instrumentations patch them as they load.
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
import type { ClientInterceptors } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Config } from '../config';

/** Requests that would only add noise to traces: scrapes and probes. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz']);

export interface Tracing {
  enabled: boolean;
  /** For every Temporal client of the process: starts, updates and signals carry the caller's trace. */
  clientInterceptors: ClientInterceptors | undefined;
  /** For every worker: activities continue the workflow's trace; workflow spans leave the sandbox through a sink. */
  workerInterceptors: WorkerInterceptors | undefined;
  workerSinks: InjectedSinks<any> | undefined;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export const TRACING_OFF: Tracing = {
  enabled: false,
  clientInterceptors: undefined,
  workerInterceptors: undefined,
  workerSinks: undefined,
  shutdown: async () => undefined,
};

/** The workflow-side interceptors, bundled with the workflows when tracing is on. */
export const WORKFLOW_TRACING_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

let active: Tracing | undefined;

/**
 * Installs tracing for this process as `config` says, once (later calls return the first). `spanProcessor`
 * replaces the configured exporter (tests use an in-memory one).
 */
export function startTracing(config: Pick<Config, 'observability'>, serviceName: string, spanProcessor?: SpanProcessor): Tracing {
  if (active) return active;
  const processor = spanProcessor ?? configuredProcessor(config.observability.traces);
  if (!processor) return TRACING_OFF;

  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.observability.serviceName ?? serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
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
  const tracing: Tracing = {
    enabled: true,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    workerInterceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    workerSinks: { exporter: makeWorkflowExporter(sandboxSpanProcessor(processor) as never, resource as never) },
    shutdown: () => provider.shutdown(),
  };
  active = tracing;
  return tracing;
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
 * processors and exporters read `parentSpanContext` and `instrumentationScope`. This adds the 2.x fields.
 */
function sandboxSpanProcessor(processor: SpanProcessor): SpanProcessor {
  return {
    onStart: (span: Span, context: Context) => processor.onStart(span, context),
    onEnd(span: ReadableSpan) {
      const sandbox = span as unknown as SandboxSpan & ReadableSpan;
      const own = sandbox.spanContext();
      const parentSpanContext = sandbox.parentSpanContext ??
        (sandbox.parentSpanId ? { traceId: own.traceId, spanId: sandbox.parentSpanId, traceFlags: own.traceFlags } : undefined);
      const instrumentationScope = sandbox.instrumentationScope ?? sandbox.instrumentationLibrary ?? { name: '@temporalio/interceptors-opentelemetry' };
      processor.onEnd(Object.assign(sandbox, { parentSpanContext, instrumentationScope }));
    },
    forceFlush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
}
