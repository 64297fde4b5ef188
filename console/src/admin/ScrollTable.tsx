import type { ReactNode } from 'react';

/** A wide table that scrolls sideways on its own (focusable, so by keyboard too) instead of widening the page. */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
