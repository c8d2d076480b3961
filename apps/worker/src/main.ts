import { runApp } from '@drover/platform';
import { WorkerAppModule } from './worker-app.module';

void runApp({ name: 'worker', defaultPort: 3002, module: WorkerAppModule.forRoot });
