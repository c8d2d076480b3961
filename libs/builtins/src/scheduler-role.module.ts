import { Module } from '@nestjs/common';
import { SchedulerModule } from '@drover/scheduler';
import { HttpCandidatesProvider } from './candidates/http-candidates.provider';

/**
 * The scheduler role with Drover's built-in candidate provider (`http.candidates`); the scheduler
 * and standalone apps import it, and so may a team's own scheduler app with its own `@Condition`s
 * and `@CandidateProvider`s (docs/scheduler.md).
 */
@Module({
  imports: [SchedulerModule.forRoot()],
  providers: [HttpCandidatesProvider],
})
export class SchedulerRoleModule {}
