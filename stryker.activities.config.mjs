// Mutation testing of the activities against test/activities (`make mutate`, second run): the
// shared settings are in stryker.config.mjs.
import { unitRunOf } from './stryker.config.mjs';

export default unitRunOf('activities');
