import { ok, type Route } from './route';

export const buildInfoRoute: Route = {
  method: 'GET',
  path: '/buildinfo',
  public: true,
  handle(ctx) {
    const d = ctx.deployment;
    return ok({
      external_url: 'https://github.com/coder/coder',
      version: ctx.serverVersion,
      dashboard_url: d.accessUrl,
      workspace_proxy: false,
      agent_api_version: '2.6',
      provisioner_api_version: '1.9',
      upgrade_message: '',
      deployment_id: d.org.id,
      telemetry: false,
      webpush_public_key: '',
    });
  },
};
