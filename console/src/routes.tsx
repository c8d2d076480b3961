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
import { lazyPage } from './lazy';

// Pages that change things, and the audit log, load on first visit: the first load stays small.
const RoutineEditor = lazyPage(() => import('./pages/routine-editor').then((m) => m.RoutineEditor));
const Enqueue = lazyPage(() => import('./pages/enqueue').then((m) => m.Enqueue));
const Audit = lazyPage(() => import('./pages/audit').then((m) => m.Audit));
const Batches = lazyPage(() => import('./pages/batches').then((m) => m.Batches));
const BatchDetail = lazyPage(() => import('./pages/batches').then((m) => m.BatchDetail));

export const NAV: [string, string][] = [
  ['/', 'Overview'],
  ['/routines', 'Routines'],
  ['/runs', 'Runs'],
  ['/batches', 'Batches'],
  ['/parked', 'Parked'],
  ['/queues', 'Queues'],
  ['/workers', 'Workers'],
  ['/plan', 'Plan'],
  ['/audit', 'Audit'],
];

/** Sections shown only from a role up (the api refuses the rest anyway). */
export const NAV_ROLE: Record<string, 'admin'> = { '/audit': 'admin' };

/** The page for a console path. */
export function Routes({ path }: { path: string }) {
  let m: Record<string, string> | undefined;
  if (path === '/') return <Overview />;
  if (path === '/routines') return <Routines />;
  if (path === '/routines/new') return <RoutineEditor />;
  if ((m = match('/routines/:name/edit', path))) return <RoutineEditor key={m.name} name={m.name!} />;
  if ((m = match('/routines/:name', path))) return <RoutineDetail key={m.name} name={m.name!} />;
  if (path === '/runs') return <Runs />;
  if ((m = match('/runs/:id', path))) return <RunDetail key={m.id} id={m.id!} />;
  if (path === '/batches') return <Batches />;
  if ((m = match('/batches/:id', path))) return <BatchDetail key={m.id} id={m.id!} />;
  if (path === '/parked') return <Parked />;
  if (path === '/queues') return <Queues />;
  if (path === '/workers') return <Workers />;
  if (path === '/plan') return <Plan />;
  if (path === '/jobs/new') return <Enqueue />;
  if (path === '/audit') return <Audit />;
  return (
    <Page title="Not found">
      <p>
        No console page at <code>{path}</code>. <Link to="/">Back to the overview</Link>.
      </p>
    </Page>
  );
}
