import { describe, expect, it } from 'vitest';
import { injectedErrorFor, parseInjectedFailures, stripFailureTokens, wantsBadOutput } from '../../../src/providers/local/failureInjection';

describe('failure injection tokens', () => {
  it('parses every token kind, case-insensitively, with the transient count defaulting to 1', () => {
    expect(parseInjectedFailures('a [fail:transient] b [FAIL:Transient:3] [fail:permanent] [fail:policy] [fail:bad-output]')).toEqual([
      { kind: 'transient', attempts: 1 },
      { kind: 'transient', attempts: 3 },
      { kind: 'permanent' },
      { kind: 'policy' },
      { kind: 'bad-output' },
    ]);
    expect(parseInjectedFailures('no tokens [fail:unknown] [fail:transient:x]')).toEqual([]);
  });

  it('fails transient attempts up to N only', () => {
    const failures = parseInjectedFailures('[fail:transient:2]');
    expect(injectedErrorFor(failures, 1, 'pixelforge')).toMatchObject({ code: 'INJECTED_FAILURE', retryable: true });
    expect(injectedErrorFor(failures, 2, 'pixelforge')).toMatchObject({ code: 'INJECTED_FAILURE', retryable: true });
    expect(injectedErrorFor(failures, 3, 'pixelforge')).toBeUndefined();
  });

  it('fails permanent and policy tokens on every attempt, non-retryably', () => {
    expect(injectedErrorFor(parseInjectedFailures('[fail:permanent]'), 9, 'pixelforge')).toMatchObject({ code: 'INJECTED_FAILURE', retryable: false });
    expect(injectedErrorFor(parseInjectedFailures('[fail:policy]'), 1, 'pixelforge')).toMatchObject({
      code: 'CONTENT_POLICY_VIOLATION',
      retryable: false,
    });
  });

  it('leaves bad-output to the output check and strips tokens from the rendered text', () => {
    const failures = parseInjectedFailures('x [fail:bad-output]');
    expect(injectedErrorFor(failures, 1, 'pixelforge')).toBeUndefined();
    expect(wantsBadOutput(failures)).toBe(true);
    expect(stripFailureTokens('a cat [fail:transient:2]  on a mat [fail:permanent]')).toBe('a cat on a mat');
  });

  it('takes one provider down for the job: every attempt there fails with INJECTED_OUTAGE, the others proceed', () => {
    const failures = parseInjectedFailures('a relay [fail:route:pixelforge]');
    expect(failures).toEqual([{ kind: 'route', provider: 'pixelforge' }]);
    expect(injectedErrorFor(failures, 1, 'pixelforge')).toMatchObject({ code: 'INJECTED_OUTAGE', retryable: false });
    expect(injectedErrorFor(failures, 1, 'lumina')).toBeUndefined();
    expect(stripFailureTokens('a relay [fail:route:pixelforge] at dusk')).toBe('a relay at dusk');
  });
});
