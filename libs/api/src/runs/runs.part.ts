import type { ApiPart } from '../api-part';
import { ClusterEventFeed } from '../events/cluster-event-feed';
import { EventsController } from '../events/events.controller';
import { SseStreams } from '../events/sse-streams';
import { JobEnqueue } from './job-enqueue.service';
import { JobsController } from './jobs.controller';
import { RunEventStreams } from './run-event-stream.service';
import { RunListing } from './run-listing.service';
import { RunLogStreams } from './run-log-stream.service';
import { RunLogsController } from './run-logs.controller';
import { RunsController } from './runs.controller';

/**
 * The runs routes of the API (ad-hoc jobs, runs, a run's event stream and log) and the cluster-wide event
 * stream, with the services behind them: both streams share one BullMQ event reader per queue.
 */
export const RUNS_PART: ApiPart = {
  controllers: [JobsController, RunsController, RunLogsController, EventsController],
  providers: [JobEnqueue, RunListing, RunEventStreams, RunLogStreams, SseStreams, ClusterEventFeed],
};
