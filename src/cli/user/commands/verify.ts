import type { Command } from 'commander';
import type { ProvenanceVerification } from '@genmedia/client';
import { connectionOptions } from '../options';
import { runClientCommand, type CommandOptions } from '../output';
import { openClient } from '../session';

/** What a check proves, in a few lines. */
export function describeVerification(file: string, result: ProvenanceVerification): string {
  if (!result.hasManifest) return `${file}: no Content Credentials (a WebM keeps them in its .c2pa sidecar: give it with --manifest)`;
  const lines = [`${file}: Content Credentials ${result.valid ? 'valid' : 'INVALID: the file changed after it was signed, or the manifest is damaged'}`];
  if (!result.valid) {
    for (const failure of result.report.failures) lines.push(`  ${failure.code}${failure.explanation ? `: ${failure.explanation}` : ''}`);
    return lines.join('\n');
  }
  const signer = result.report.activeManifest?.signer;
  if (result.signedByThisService) {
    lines.push(`  signed by this service${signer?.commonName ? ` (${signer.commonName})` : ''}`);
    lines.push(result.job ? `  job ${result.job.jobId}, output ${result.job.output}` : '  for another account: no job is named');
  } else {
    lines.push(`  signed by another chain${signer?.commonName ? `: ${signer.commonName}` : ''}${signer?.issuer ? `, issued by ${signer.issuer}` : ''}`);
  }
  const generator = result.report.activeManifest?.claimGenerator;
  if (generator) lines.push(`  claim generator ${generator}`);
  return lines.join('\n');
}

export function registerVerifyCommand(program: Command): void {
  connectionOptions(program.command('verify'))
    .description("Check a file's Content Credentials: valid or changed, signed by this service or not, and which of your jobs made it (exit 1 when changed)")
    .argument('<path>')
    .option('--manifest <path>', "the file's sidecar manifest (a WebM output's .c2pa), to check the file against")
    .action((file: string, options: CommandOptions & { manifest?: string }) =>
      runClientCommand(
        options,
        async () => {
          const result = await openClient(options).verifyProvenance(file, options.manifest === undefined ? {} : { manifest: options.manifest });
          // A changed file is a failed check, for scripts as for people.
          if (result.hasManifest && !result.valid) process.exitCode = 1;
          return result;
        },
        (result) => describeVerification(file, result),
      ),
    );
}
