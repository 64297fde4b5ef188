import { ProviderError } from '../types';

/**
 * Failure injection for tests and demos: a token in the prompt makes the local provider fail
 * half-way through its processing time.
 *
 *   [fail:transient]      first attempt fails with a retryable INJECTED_FAILURE
 *   [fail:transient:N]    attempts 1..N fail (retryable), attempt N+1 succeeds
 *   [fail:permanent]      every attempt fails with a non-retryable INJECTED_FAILURE
 *   [fail:policy]         every attempt fails with a non-retryable CONTENT_POLICY_VIOLATION
 *   [fail:bad-output]     the rendered file is corrupted, so output checks fail with a non-retryable BAD_OUTPUT
 *   [fail:route:<id>]     provider <id> is down for this job: every attempt there fails with a non-retryable
 *                         INJECTED_OUTAGE, which a routed job fails over (a demo of failover without keys). Real
 *                         upstreams honour it too (routeOutageFor), before anything is sent, so with keys set a
 *                         person can take one upstream down for a job and watch it fail over, paying once
 *
 * Tokens are case-insensitive and removed from the text rendered into the media.
 */
export type InjectedFailure =
  | { kind: 'transient'; attempts: number }
  | { kind: 'permanent' }
  | { kind: 'policy' }
  | { kind: 'bad-output' }
  | { kind: 'route'; provider: string };

const TOKEN = /\[fail:(?:(transient|permanent|policy|bad-output)(?::(\d{1,3}))?|route:([a-z0-9][a-z0-9-]{0,63}))\]/gi;

export function parseInjectedFailures(prompt: string): InjectedFailure[] {
  const found: InjectedFailure[] = [];
  for (const match of prompt.matchAll(TOKEN)) {
    if (match[3] !== undefined) {
      found.push({ kind: 'route', provider: match[3].toLowerCase() });
      continue;
    }
    const kind = match[1].toLowerCase();
    if (kind === 'transient') found.push({ kind, attempts: match[2] === undefined ? 1 : Number(match[2]) });
    else found.push({ kind: kind as 'permanent' | 'policy' | 'bad-output' });
  }
  return found;
}

export function stripFailureTokens(prompt: string): string {
  return prompt.replace(TOKEN, '').replace(/\s{2,}/g, ' ').trim();
}

/** The error this attempt must fail with, or undefined when it should proceed. `bad-output` is handled after rendering. */
export function injectedErrorFor(failures: readonly InjectedFailure[], attempt: number, providerId: string): ProviderError | undefined {
  for (const failure of failures) {
    switch (failure.kind) {
      case 'route':
        if (failure.provider === providerId) {
          return new ProviderError('INJECTED_OUTAGE', `Injected outage of ${providerId} ([fail:route:${providerId}])`, { retryable: false });
        }
        break;
      case 'permanent':
        return new ProviderError('INJECTED_FAILURE', 'Injected permanent failure ([fail:permanent])', { retryable: false });
      case 'policy':
        return new ProviderError('CONTENT_POLICY_VIOLATION', 'Injected content policy rejection ([fail:policy])', {
          retryable: false,
        });
      case 'transient':
        if (attempt <= failure.attempts) {
          return new ProviderError(
            'INJECTED_FAILURE',
            `Injected transient failure on attempt ${attempt} of ${failure.attempts} ([fail:transient:${failure.attempts}])`,
            { retryable: true },
          );
        }
        break;
      case 'bad-output':
        break;
    }
  }
  return undefined;
}

export function wantsBadOutput(failures: readonly InjectedFailure[]): boolean {
  return failures.some((f) => f.kind === 'bad-output');
}

/** The outage a `[fail:route:<providerId>]` token in `prompt` asks of this provider, if any. */
export function routeOutageFor(prompt: unknown, providerId: string): ProviderError | undefined {
  if (typeof prompt !== 'string') return undefined;
  return injectedErrorFor(parseInjectedFailures(prompt).filter((f) => f.kind === 'route'), 1, providerId);
}
