import { useState } from 'preact/hooks';
import { api, errorText, ok, type Routine, type Schemas } from '../api';
import { useResource } from '../resource';
import { useCan } from '../session';
import { Empty, ErrorNote, RunLink, Status, Time } from './bits';

type Ranking = Schemas['CandidateRanking'];
const sec = (v: number | null) => (v === null ? 'never done' : `${Math.round(v * 100) / 100} s`);

/**
 * A selector routine's overrides and candidates, on its page: the pending overrides (anyone), an
 * override form and a clear button (operators), and the dry run of the provider's answer
 * (operators: it runs the provider's code), asked for by a button rather than on every reload.
 */
export function SelectorPanel({ routine, reloadKey }: { routine: Routine; reloadKey: unknown }) {
  const can = useCan('operator');
  const name = routine.name;
  const path = { params: { path: { name } } };
  const overrides = useResource(() => ok(api.GET('/api/v1/routines/{name}/overrides', path)), [name, reloadKey]);
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [ranking, setRanking] = useState<Ranking>();
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const add = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      await ok(api.POST('/api/v1/routines/{name}/overrides', { ...path, body: { key: key.trim() } }));
      setKey('');
      overrides.reload();
    });
  };
  const clear = () =>
    void act(async () => {
      await ok(api.DELETE('/api/v1/routines/{name}/overrides', path));
      overrides.reload();
    });
  const rank = () => void act(async () => setRanking(await ok(api.GET('/api/v1/routines/{name}/candidates', path))));
  const items = overrides.data?.items ?? [];
  return (
    <section aria-labelledby="selector-title">
      <h2 id="selector-title">Candidates and overrides</h2>
      <p class="muted small">
        Provider <code>{routine.definition.selector?.provider}</code>, up to {routine.definition.selector?.maxPerTick}{' '}
        per tick. An override runs its key before the automatic candidates.
      </p>
      <ErrorNote error={overrides.error} />
      <h3>Pending overrides</h3>
      {items.length === 0 ? (
        <Empty>No pending overrides.</Empty>
      ) : (
        <table>
          <caption class="sr-only">Pending overrides of {name}</caption>
          <thead>
            <tr>
              <th scope="col">key</th>
              <th scope="col">run</th>
              <th scope="col">status</th>
              <th scope="col">created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((o) => (
              <tr key={o.runId}>
                <th scope="row">{o.key}</th>
                <td>
                  <RunLink id={o.runId} />
                </td>
                <td>
                  <Status status={o.status} />
                </td>
                <td>
                  <Time iso={o.createdAt} />
                  {o.createdBy && ` by ${o.createdBy}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {can && (
        <div class="row-actions">
          <form class="inline-form" onSubmit={add} aria-label={`Add an override to ${name}`}>
            <label>
              Key{' '}
              <input
                value={key}
                required
                maxLength={512}
                onInput={(e) => setKey((e.target as HTMLInputElement).value)}
              />
            </label>
            <button type="submit" disabled={busy || !key.trim()}>
              Add override
            </button>
          </form>
          {items.length > 0 && (
            <button type="button" disabled={busy} onClick={clear}>
              Clear overrides not started
            </button>
          )}
          <button type="button" disabled={busy} onClick={rank}>
            Rank candidates now
          </button>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {ranking && <RankingTable ranking={ranking} />}
    </section>
  );
}

function RankingTable({ ranking }: { ranking: Ranking }) {
  return (
    <>
      <h3>
        Ranking at <Time iso={ranking.at} />
      </h3>
      {ranking.error && (
        <p class="error" role="alert">
          The provider failed (a tick would count a launch failure): {ranking.error}
        </p>
      )}
      {ranking.items.length === 0 ? (
        <Empty>The provider answered no candidates.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <caption class="sr-only">Candidates as the next tick would rank them</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">key</th>
                <th scope="col">band</th>
                <th scope="col">staleness</th>
                <th scope="col">weighted</th>
                <th scope="col">verdict</th>
              </tr>
            </thead>
            <tbody>
              {ranking.items.map((c) => (
                <tr key={`${c.rank}`}>
                  <td>{c.rank}</td>
                  <th scope="row">{c.key}</th>
                  <td>{c.band}</td>
                  <td>{sec(c.stalenessSec)}</td>
                  <td>{sec(c.weightedStalenessSec)}</td>
                  <td>
                    <span class={`badge v-${c.verdict}`}>{c.verdict}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
