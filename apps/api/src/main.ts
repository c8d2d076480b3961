import { configureApiHttp } from '@drover/api';
import { runApp } from '@drover/platform';
import { ApiAppModule } from './api-app.module';

void runApp({
  name: 'api',
  defaultPort: 3000,
  module: ApiAppModule.forRoot,
  bodyParser: false,
  configure: configureApiHttp,
});
