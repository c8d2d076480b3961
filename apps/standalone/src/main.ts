import { runApp } from '@drover/platform';
import { StandaloneAppModule } from './standalone-app.module';

void runApp({ name: 'standalone', defaultPort: 3000, module: StandaloneAppModule.forRoot });
