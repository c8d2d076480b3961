import { runApp } from '@drover/platform';
import { SchedulerAppModule } from './scheduler-app.module';

void runApp({ name: 'scheduler', defaultPort: 3001, module: SchedulerAppModule.forRoot });
