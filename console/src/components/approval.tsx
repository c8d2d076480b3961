import { useState } from 'preact/hooks';
import { api, errorText, ok, type Run } from '../api';
import { useCan } from '../session';
import { Time } from './bits';

type Approval = NonNullable<Run['approval']>;

/** Where a gated run's approval stands: waiting (until when), or who decided, when and why. */
export function ApprovalFact({ approval }: { approval: Approval }) {
  return (
    <>
      <dt>approval</dt>
      <dd data-testid="run-approval">
        {approval.state}
        {approval.by && ` by ${approval.by}`}
        {approval.at && (
          <>
            {' '}
            <Time iso={approval.at} />
          </>
        )}
        {approval.state === 'waiting' && approval.expiresAt && (
          <>
            {' '}
            · expires <Time iso={approval.expiresAt} />
          </>
        )}
        {approval.reason && ` — ${approval.reason}`}
      </dd>
    </>
  );
}

/**
 * Approve and Reject for an operator (the API's role for both), on a run awaiting approval, with an
 * optional reason kept on the run's approval. A run decided meanwhile answers 409: shown as an error.
 */
export function ApprovalActions({ run, onChange }: { run: Run; onChange: (r: Run) => void }) {
  const can = useCan('operator');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  if (!can || run.status !== 'awaiting-approval') return null;
  const decide = async (kind: 'approve' | 'reject') => {
    const init = { params: { path: { id: run.id } }, body: reason.trim() ? { reason: reason.trim() } : {} };
    try {
      onChange(
        await ok(
          kind === 'approve' ? api.POST('/api/v1/runs/{id}/approve', init) : api.POST('/api/v1/runs/{id}/reject', init),
        ),
      );
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <>
      <input
        type="text"
        aria-label="reason for the approval decision"
        placeholder="reason (optional)"
        maxLength={500}
        value={reason}
        onInput={(e) => setReason((e.target as HTMLInputElement).value)}
      />
      <button type="button" onClick={() => void decide('approve')}>
        Approve
      </button>
      <button type="button" class="danger" onClick={() => void decide('reject')}>
        Reject
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
