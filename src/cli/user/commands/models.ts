import type { Command } from 'commander';
import type { ModelDetail, ModelListEntry } from '@genmedia/client';
import { creditsToMicroCents, formatDollars } from '../../../shared/money';
import { connectionOptions } from '../options';
import { runClientCommand, type CommandOptions } from '../output';
import { openClient } from '../session';

function price(pricing: { baseCredits: number; unit: string }): string {
  return `${formatDollars(creditsToMicroCents(pricing.baseCredits))} ${pricing.unit.replace('_', ' ')}`;
}

function describeList(models: ModelListEntry[]): string {
  if (models.length === 0) return 'no models';
  const width = Math.max(...models.map((m) => m.id.length));
  return models.map((m) => `${m.id.padEnd(width)}  ${m.category.padEnd(6)}  ${price(m.currentVersionPricing).padEnd(24)}  ${m.name}`).join('\n');
}

interface SchemaProperty {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
}

function describeInputs(schema: { properties?: Record<string, SchemaProperty>; required?: string[] }): string[] {
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = property.enum ? property.enum.map((v) => JSON.stringify(v)).join('|') : String(property.type ?? 'any');
    const flags = [schema.required?.includes(name) ? 'required' : null, property.default !== undefined ? `default ${JSON.stringify(property.default)}` : null]
      .filter(Boolean)
      .join(', ');
    return `    -i ${name}=<${type}>${flags ? `  (${flags})` : ''}${property.description ? `  ${property.description}` : ''}`;
  });
}

function describeModel(model: ModelDetail): string {
  const lines = [`${model.id}  ${model.name} by ${model.providerName}`, `  ${model.description}`, `  category ${model.category}`];
  for (const version of model.versions) {
    const current = version.versionId === model.currentVersion ? ' (current)' : '';
    lines.push(
      `  version ${version.versionId}${current}: ${version.status}, ${price(version.pricing)}, ` +
        `${version.rateLimits.requestsPerMinute}/min, ${version.rateLimits.requestsPerDay}/day`,
    );
    if (version.versionId === model.currentVersion) lines.push('  inputs:', ...describeInputs(version.inputSchema));
  }
  return lines.join('\n');
}

export function registerUserModelCommands(program: Command): void {
  const models = program.command('models').description('The models your key can use');
  connectionOptions(models.command('ls'))
    .description('Every model with its category and price')
    .action((options: CommandOptions) => runClientCommand(options, () => openClient(options).listModels(), describeList));
  connectionOptions(models.command('show'))
    .description("A model's versions, prices, rate limits and input fields")
    .argument('<model>', 'model slug')
    .action((model: string, options: CommandOptions) => runClientCommand(options, () => openClient(options).getModel(model), describeModel));
}
