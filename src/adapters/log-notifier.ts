export { createLogNotifier } from './notify/log';
