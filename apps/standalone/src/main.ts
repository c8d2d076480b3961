import { configureApiHttp } from '@drover/api';
import { runApp } from '@drover/platform';
import { StandaloneAppModule } from './standalone-app.module';

void runApp({
  name: 'standalone',
  defaultPort: 3000,
  module: StandaloneAppModule.forRoot,
  bodyParser: false,
  configure: configureApiHttp,
});
