import { Page } from './components/bits';
import { Link } from './components/link';
import { match } from './router';
import { Overview } from './pages/overview';
import { Parked } from './pages/parked';
import { Plan } from './pages/plan';
import { Queues } from './pages/queues';
import { RoutineDetail } from './pages/routine-detail';
import { Routines } from './pages/routines';
import { RunDetail } from './pages/run-detail';
import { Runs } from './pages/runs';
import { Workers } from './pages/workers';

export const NAV: [string, string][] = [
  ['/', 'Overview'],
  ['/routines', 'Routines'],
  ['/runs', 'Runs'],
  ['/parked', 'Parked'],
  ['/queues', 'Queues'],
  ['/workers', 'Workers'],
  ['/plan', 'Plan'],
];

/** The page for a console path. */
export function Routes({ path }: { path: string }) {
  let m: Record<string, string> | undefined;
  if (path === '/') return <Overview />;
  if (path === '/routines') return <Routines />;
  if ((m = match('/routines/:name', path))) return <RoutineDetail key={m.name} name={m.name!} />;
  if (path === '/runs') return <Runs />;
  if ((m = match('/runs/:id', path))) return <RunDetail key={m.id} id={m.id!} />;
  if (path === '/parked') return <Parked />;
  if (path === '/queues') return <Queues />;
  if (path === '/workers') return <Workers />;
  if (path === '/plan') return <Plan />;
  return (
    <Page title="Not found">
      <p>
        No console page at <code>{path}</code>. <Link to="/">Back to the overview</Link>.
      </p>
    </Page>
  );
}
