import type { CatalogModel } from '@genmedia/client';
import { creditsToMicroCents, formatDollars } from '../../src/shared/money';

const UNIT_LABELS: Record<CatalogModel['pricing']['unit'], string> = {
  per_image: 'per image',
  per_second: 'per second',
  per_generation: 'per generation',
};

export function unitPrice(pricing: CatalogModel['pricing']): string {
  return `${formatDollars(creditsToMicroCents(pricing.baseCredits))} ${UNIT_LABELS[pricing.unit]}`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' });
}

/** "in 25 s", "in 3 min", or "any moment" once the time has passed. */
export function formatEta(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (seconds <= 0) return 'any moment';
  if (seconds < 90) return `in ${seconds} s`;
  return `in ${Math.round(seconds / 60)} min`;
}

/** A retention as people read it: "forever", "7 days", "1 hour", "90 s". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return 'forever';
  const units: [number, string][] = [[86_400, 'day'], [3_600, 'hour'], [60, 'minute']];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${name}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} s`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** `num_images` → "Num images", `characterImages` → "Character images". */
export function humanize(name: string): string {
  const words = name.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Micro-cents as a plain dollar amount for an input ("12.5", "0.000125"), the inverse of parseDollars. */
export function dollarsForInput(microCents: number): string {
  return formatDollars(microCents).replace('$', '').replace(/\.00$/, '');
}
