import { useId, type InputHTMLAttributes } from 'react';

/** A labelled input with its hint and its error, tied to it for screen readers. */
export function FormField({
  label,
  hint,
  error,
  ...input
}: { label: string; hint?: string; error?: string | null } & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={described || undefined} {...input} />
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A dollar amount typed as text (exact to the micro-cent, see parseDollars). */
export function MoneyField(props: { label: string; hint?: string; error?: string | null; value: string; onChange(value: string): void; required?: boolean }) {
  const { onChange, ...rest } = props;
  return <FormField {...rest} type="text" inputMode="decimal" autoComplete="off" spellCheck={false} onChange={(e) => onChange(e.target.value)} />;
}
