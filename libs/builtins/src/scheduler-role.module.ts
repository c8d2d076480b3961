import { Module } from '@nestjs/common';
import { SchedulerModule } from '@drover/scheduler';
import { HttpCandidatesProvider } from './candidates/http-candidates.provider';
import { HttpCondition } from './conditions/http.condition';

/**
 * The scheduler role with Drover's built-in candidate provider (`http.candidates`) and condition
 * kind `http` (the scheduler module itself brings `queue-depth`); the scheduler
 * and standalone apps import it, and so may a team's own scheduler app with its own `@Condition`s
 * and `@CandidateProvider`s (docs/scheduler.md).
 */
@Module({
  imports: [SchedulerModule.forRoot()],
  providers: [HttpCandidatesProvider, HttpCondition],
})
export class SchedulerRoleModule {}
