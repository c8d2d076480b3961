import { OperationStore } from '@drover/store';
import type { ApiPart } from '../api-part';
import { OperationsController } from './operations.controller';
import { ParkedController } from './parked.controller';
import { ParkedOperations } from './parked-operations.service';
import { QueueViews } from './queue-views.service';
import { QueuesController } from './queues.controller';
import { QueueStatsController } from './queue-stats.controller';

/** The queues routes of the API (queues, their run totals, parked runs, bulk operations) and the services behind them. */
export const QUEUES_PART: ApiPart = {
  controllers: [QueuesController, QueueStatsController, ParkedController, OperationsController],
  providers: [QueueViews, OperationStore, ParkedOperations],
};
