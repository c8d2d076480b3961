import { CandidateProbe } from '@drover/store';
import type { ApiPart } from '../api-part';
import { ApplyController } from './apply.controller';
import { PolicyApply } from './policy-apply.service';
import { RoutineActionsController } from './routine-actions.controller';
import { RoutineBackfill } from './routine-backfill.service';
import { RoutineInsightsController } from './routine-insights.controller';
import { RoutineOverridesController } from './routine-overrides.controller';
import { RoutineSkipsController } from './routine-skips.controller';
import { RoutineSlotsController } from './routine-slots.controller';
import { RoutineOverrides } from './routine-overrides.service';
import { RoutineListing } from './routine-listing.service';
import { RoutinesController } from './routines.controller';
import { RoutinesService } from './routines.service';
import { WhatIfController } from './what-if.controller';
import { PlanWhatIf } from './what-if.service';

/** The routines routes of the API (and POST /apply) and the services behind them. */
export const ROUTINES_PART: ApiPart = {
  controllers: [
    RoutinesController,
    RoutineActionsController,
    RoutineInsightsController,
    RoutineOverridesController,
    RoutineSlotsController,
    RoutineSkipsController,
    ApplyController,
    WhatIfController,
  ],
  providers: [
    RoutinesService,
    RoutineListing,
    RoutineBackfill,
    PolicyApply,
    RoutineOverrides,
    CandidateProbe,
    PlanWhatIf,
  ],
};
