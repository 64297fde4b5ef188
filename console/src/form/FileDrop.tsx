import { useEffect, useRef, useState, type DragEvent } from 'react';
import type { MediaKind } from '../../../src/shared/media';
import { explain } from '../components/ErrorNotice';
import { formatBytes } from '../format';
import { useSession } from '../session';
import { uploadWithProgress } from './upload';

interface Props {
  id: string;
  accept: string;
  media: MediaKind[];
  value: string;
  onChange(value: string): void;
  disabled: boolean;
  describedBy?: string;
}

type State =
  | { phase: 'idle' }
  | { phase: 'uploading'; name: string; size: number; fraction: number }
  | { phase: 'done'; name: string; size: number; preview: string }
  | { phase: 'failed'; message: string };

/** Drop a file (or choose one, or paste a URL): it is uploaded at once and its fileUrl becomes the field's value. */
export function FileDrop({ id, accept, media, value, onChange, disabled, describedBy }: Props) {
  const { client, can } = useSession();
  const [state, setState] = useState<State>({ phase: 'idle' });
  const [dragging, setDragging] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const allowed = can('upload');

  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => () => (state.phase === 'done' ? URL.revokeObjectURL(state.preview) : undefined), [state]);

  async function take(file: File) {
    if (!accept.split(',').includes(file.type)) {
      setState({ phase: 'failed', message: `${file.name} is ${file.type || 'of an unknown type'}; expected ${accept.replace(/,/g, ', ')}` });
      return;
    }
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setState({ phase: 'uploading', name: file.name, size: file.size, fraction: 0 });
    try {
      const { fileUrl } = await uploadWithProgress(client, file, (fraction) => setState({ phase: 'uploading', name: file.name, size: file.size, fraction }), controller.signal);
      setState({ phase: 'done', name: file.name, size: file.size, preview: URL.createObjectURL(file) });
      onChange(fileUrl);
    } catch (err) {
      if (controller.signal.aborted) return;
      const { title, detail } = explain(err);
      setState({ phase: 'failed', message: `${title}: ${detail}` });
    }
  }

  function drop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file && allowed && !disabled) void take(file);
  }

  return (
    <div
      className={`dropzone${dragging ? ' dragging' : ''}`}
      data-testid={`dropzone-${id}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={drop}
    >
      <p className="muted">
        {allowed ? `Drop ${media.join(' or ')} here, or ` : 'This key cannot upload (it lacks the upload scope); paste a URL instead.'}
        {allowed && (
          <label className="file-button">
            choose a file
            <input
              type="file"
              accept={accept}
              disabled={disabled}
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) void take(file);
                e.target.value = '';
              }}
            />
          </label>
        )}
      </p>
      {state.phase === 'uploading' && (
        <div className="upload-progress">
          <span>
            Uploading {state.name} ({formatBytes(state.size)})
          </span>
          <progress max={1} value={state.fraction} aria-label={`Upload of ${state.name}`} />
        </div>
      )}
      {state.phase === 'done' && (
        <div className="upload-done">
          {state.preview && media.includes('image') && <img src={state.preview} alt="" className="preview" />}
          <span>
            Uploaded {state.name} ({formatBytes(state.size)})
          </span>
        </div>
      )}
      {state.phase === 'failed' && (
        <p className="field-error" role="alert">
          {state.message}
        </p>
      )}
      <input
        id={id}
        type="url"
        placeholder="https://… or a file uploaded above"
        value={value}
        onChange={(e) => {
          setState({ phase: 'idle' });
          onChange(e.target.value);
        }}
        disabled={disabled}
        aria-describedby={describedBy}
      />
    </div>
  );
}
