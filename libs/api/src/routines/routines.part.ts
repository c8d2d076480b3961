import type { ApiPart } from '../api-part';
import { ApplyController } from './apply.controller';
import { PolicyApply } from './policy-apply.service';
import { RoutineActionsController } from './routine-actions.controller';
import { RoutineBackfill } from './routine-backfill.service';
import { RoutineInsightsController } from './routine-insights.controller';
import { RoutineListing } from './routine-listing.service';
import { RoutinesController } from './routines.controller';
import { RoutinesService } from './routines.service';

/** The routines routes of the API (and POST /apply) and the services behind them. */
export const ROUTINES_PART: ApiPart = {
  controllers: [RoutinesController, RoutineActionsController, RoutineInsightsController, ApplyController],
  providers: [RoutinesService, RoutineListing, RoutineBackfill, PolicyApply],
};
