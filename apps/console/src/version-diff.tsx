import { Suspense, lazy } from 'react';
import { Problem, useLoad } from './ui';

/** CodeMirror's merge view is loaded only where it is used (its own chunk). */
const JsonDiff = lazy(() => import('./code-editor').then((module) => ({ default: module.JsonDiff })));

/**
 * Two versions of one resource (a workflow, a template) side by side as JSON, what changed
 * marked. `read` answers what of a version is compared; `subject` names the resource, so a
 * page reloads the diff when it shows another one.
 */
export function VersionDiff(props: { subject: string; versions: [number, number]; read(version: number): Promise<unknown>; heading: 'h2' | 'h3' }) {
  const { subject, versions, read, heading: Heading } = props;
  const [before, after] = versions;
  const shown = useLoad(() => Promise.all(versions.map(async (version) => JSON.stringify(await read(version), null, 2))), [subject, before, after]);
  return (
    <div className="version-diff">
      <Heading>
        v{before} → v{after}
      </Heading>
      <Problem error={shown.error} />
      {shown.data && (
        <Suspense fallback={<p className="muted">loading…</p>}>
          <JsonDiff before={shown.data[0]} after={shown.data[1]} />
        </Suspense>
      )}
    </div>
  );
}
