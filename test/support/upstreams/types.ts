/**
 * What every fake upstream under test/support/upstreams/ offers. Each fake is an HTTP server on
 * loopback built from its upstream's published API reference: response bodies are the documented
 * examples (the page is named in a comment beside each), statuses and headers as documented.
 *
 * Tests steer a fake through the prompt of the request, with these tokens:
 *   [upstream:rate-limit]      the first creating request with this prompt gets the documented 429
 *                              (with Retry-After where documented); the next one is accepted
 *   [upstream:content-policy]  the generation ends with the documented content-policy failure
 *                              (or the creating request is refused that way, where the upstream does so)
 *   [upstream:invalid]         the creating request is refused with the documented validation error
 *   [upstream:fail]            the generation ends failed with a documented generic error
 *   [upstream:slow]            the generation keeps running until `slowMs` has passed
 *   [upstream:no-callback]     no webhook is sent for this generation (a lost callback)
 * Without a token a generation is queued, then running, then succeeded within about a second.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedUpstreamRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeUpstream {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The variables that point the adapter and its SDK here: the credential and the origin override. */
  readonly env: Record<string, string>;
  /** The API key the fake accepts; any other gets the documented 401. */
  readonly apiKey: string;
  /** Every request received, in order. */
  readonly requests: RecordedUpstreamRequest[];
  /** Generations accepted (paid): a refused or rate-limited request is not counted. */
  paidSubmissions(): number;
  /** Cancel requests received for generations. */
  cancellations(): number;
  /** How long an `[upstream:slow]` generation runs (default 8000 ms). */
  slowMs: number;
  /** When true, no webhook is sent at all (every callback is lost). */
  dropCallbacks: boolean;
  /** Stops listening: the upstream refuses connections (an outage) until `up`. */
  down(): Promise<void>;
  /** Listens again on the same origin. */
  up(): Promise<void>;
  close(): Promise<void>;
}
