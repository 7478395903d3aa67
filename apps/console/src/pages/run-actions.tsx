import { useState } from 'react';
import { Session, notification } from '../api';
import { Problem } from '../ui';

/** Cancels a running run (the reference's POST /v1/workflow_run/cancel/ by execution_id): its timers go, nothing more is sent. */
export function CancelRun({ session, runId, cancelled }: { session: Session; runId: string; cancelled(): void }) {
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const cancel = async () => {
    if (!window.confirm(`Cancel run ${runId}? Nothing more of it is sent.`)) return;
    setState({ busy: true });
    try {
      const { execution_ids } = await notification<{ execution_ids: string[] }>(session, 'v1/workflow_run/cancel/', 'POST', { execution_id: runId });
      setState({ busy: false, error: execution_ids.includes(runId) ? undefined : 'the run was no longer running' });
      cancelled();
    } catch (caught) {
      setState({ busy: false, error: caught instanceof Error ? caught.message : String(caught) });
    }
  };
  return (
    <p>
      <button type="button" className="cancel-run" disabled={state.busy} onClick={() => void cancel()}>
        Cancel this run
      </button>
      <Problem error={state.error} />
    </p>
  );
}
