import { useId } from 'react';
import { initialValue, type Field, type FieldSpec } from './fields';
import { FileDrop } from './FileDrop';

/** Problems the API reported, by input path (`prompt`, `elements[0].name`). */
export type Problems = Record<string, string>;

interface FieldProps {
  field: Field;
  path: string;
  value: unknown;
  onChange(value: unknown): void;
  problems: Problems;
  disabled: boolean;
}

export function SchemaForm(props: {
  fields: Field[];
  value: Record<string, unknown>;
  onChange(value: Record<string, unknown>): void;
  problems: Problems;
  disabled?: boolean;
}) {
  return (
    <div className="schema-form">
      <GroupFields {...props} path="" disabled={props.disabled ?? false} />
    </div>
  );
}

function GroupFields({ fields, value, onChange, problems, path, disabled }: {
  fields: Field[];
  value: Record<string, unknown>;
  onChange(value: Record<string, unknown>): void;
  problems: Problems;
  path: string;
  disabled: boolean;
}) {
  return (
    <>
      {fields.map((field) => (
        <FieldView
          key={field.name}
          field={field}
          path={path ? `${path}.${field.name}` : field.name}
          value={value[field.name]}
          problems={problems}
          disabled={disabled}
          onChange={(next) => {
            const copy = { ...value };
            if (next === undefined) delete copy[field.name];
            else copy[field.name] = next;
            onChange(copy);
          }}
        />
      ))}
    </>
  );
}

function FieldView(props: FieldProps) {
  const { field, path, problems } = props;
  const id = useId();
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  const problem = problems[path];
  const describedBy = [field.description ? hintId : '', problem ? problemId : ''].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      {field.label}
      {field.required && <span className="required" aria-hidden="true"> *</span>}
    </>
  );
  const hint = field.description && (
    <p id={hintId} className="hint">
      {field.description}
    </p>
  );
  const problemLine = problem && (
    <p id={problemId} className="field-error">
      {problem}
    </p>
  );
  const common = { id, describedBy, invalid: problem !== undefined };

  if (field.spec.kind === 'group' || field.spec.kind === 'list') {
    return (
      <fieldset className="field" aria-describedby={describedBy} data-field={path}>
        <legend>{label}</legend>
        {hint}
        <Control {...props} {...common} spec={field.spec} />
        {problemLine}
      </fieldset>
    );
  }
  return (
    <div className={`field field-${field.spec.kind}`} data-field={path}>
      <label htmlFor={id}>{label}</label>
      <Control {...props} {...common} spec={field.spec} />
      {hint}
      {problemLine}
    </div>
  );
}

interface ControlProps extends FieldProps {
  spec: FieldSpec;
  id: string;
  describedBy?: string;
  invalid: boolean;
}

function Control(props: ControlProps) {
  const { spec, id, value, onChange, describedBy, invalid, field, disabled } = props;
  const aria = { 'aria-describedby': describedBy, 'aria-invalid': invalid || undefined, 'aria-required': field.required || undefined };
  switch (spec.kind) {
    case 'select':
      return (
        <select id={id} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value || undefined)} disabled={disabled} {...aria}>
          {!field.required && field.default === undefined && <option value="">(default)</option>}
          {spec.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
    case 'toggle':
      return (
        <input
          id={id}
          type="checkbox"
          role="switch"
          className="toggle"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          disabled={disabled}
          {...aria}
        />
      );
    case 'number':
      return (
        <input
          id={id}
          type="number"
          inputMode={spec.integer ? 'numeric' : 'decimal'}
          step={spec.integer ? 1 : 'any'}
          min={spec.minimum}
          max={spec.maximum}
          value={typeof value === 'number' ? value : ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
          disabled={disabled}
          {...aria}
        />
      );
    case 'text': {
      const text = typeof value === 'string' ? value : '';
      const counter = spec.maxLength !== undefined && (
        <span className="counter" aria-live="polite">
          {text.length} / {spec.maxLength}
        </span>
      );
      const input = spec.multiline ? (
        <textarea id={id} rows={4} value={text} maxLength={spec.maxLength} onChange={(e) => onChange(e.target.value)} disabled={disabled} {...aria} />
      ) : (
        <input id={id} type="text" value={text} maxLength={spec.maxLength} onChange={(e) => onChange(e.target.value)} disabled={disabled} {...aria} />
      );
      return (
        <div className="text-control">
          {input}
          {counter}
        </div>
      );
    }
    case 'file':
      return <FileDrop id={id} accept={spec.accept} media={spec.media} value={typeof value === 'string' ? value : ''} onChange={onChange} disabled={disabled} describedBy={describedBy} />;
    case 'group':
      return (
        <GroupFields
          fields={spec.fields}
          value={isRecord(value) ? value : {}}
          onChange={onChange}
          problems={props.problems}
          path={props.path}
          disabled={disabled}
        />
      );
    case 'list':
      return <ListControl {...props} spec={spec} />;
    case 'json':
      return <JsonControl {...props} />;
  }
}

function ListControl(props: ControlProps & { spec: Extract<FieldSpec, { kind: 'list' }> }) {
  const { spec, value, onChange, field, path, problems, disabled } = props;
  const items = Array.isArray(value) ? value : [];
  const canAdd = spec.maxItems === undefined || items.length < spec.maxItems;
  const canRemove = items.length > spec.minItems;
  const itemLabel = field.label.replace(/s$/, '');
  const set = (index: number, next: unknown) => onChange(items.map((item, i) => (i === index ? next : item)));
  return (
    <div className="list-control">
      <ol className={spec.item.kind === 'group' ? 'groups' : 'items'}>
        {items.map((item, index) => (
          <li key={index}>
            <FieldView
              field={{ name: String(index), label: `${itemLabel} ${index + 1}`, required: true, spec: spec.item }}
              path={`${path}[${index}]`}
              value={item}
              onChange={(next) => set(index, next)}
              problems={problems}
              disabled={disabled}
            />
            {canRemove && (
              <button type="button" className="link-button" onClick={() => onChange(items.filter((_, i) => i !== index))} disabled={disabled}>
                Remove {itemLabel.toLowerCase()} {index + 1}
              </button>
            )}
          </li>
        ))}
      </ol>
      {canAdd && (
        <button type="button" onClick={() => onChange([...items, initialValue(spec.item)])} disabled={disabled}>
          Add {itemLabel.toLowerCase()}
        </button>
      )}
      {spec.maxItems !== undefined && (
        <span className="muted">
          {' '}
          {items.length} of at most {spec.maxItems}
        </span>
      )}
    </div>
  );
}

/** A field the form has no control for: its JSON, parsed as typed. */
function JsonControl({ id, value, onChange, describedBy, invalid, disabled }: ControlProps) {
  return (
    <textarea
      id={id}
      rows={3}
      className="json"
      defaultValue={value === undefined ? '' : JSON.stringify(value)}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      disabled={disabled}
      onChange={(e) => {
        if (e.target.value.trim() === '') return onChange(undefined);
        try {
          onChange(JSON.parse(e.target.value));
        } catch {
          // Left as it is until it parses; the estimate reports the field meanwhile.
        }
      }}
    />
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
