import {
  BuildInfoSchema,
  BuildLogsSchema,
  CoderResponseSchema,
  TemplateSchema,
  TemplateVersionSchema,
  UploadResponseSchema,
  WorkspaceBuildSchema,
  WorkspaceSchema,
  WorkspacesResponseSchema,
} from '../../../src/adapters/coder/schemas';
import { fixture, type FixtureName } from './coder-fixtures';

const schemaOf: Record<FixtureName, { safeParse(v: unknown): { success: boolean; error?: unknown } }> = {
  buildinfo: BuildInfoSchema,
  workspace: WorkspaceSchema,
  workspaces: WorkspacesResponseSchema,
  'workspace-build': WorkspaceBuildSchema,
  'build-logs': BuildLogsSchema,
  template: TemplateSchema,
  'template-version': TemplateVersionSchema,
  'file-upload': UploadResponseSchema,
  error: CoderResponseSchema,
};

describe('Coder response schemas', () => {
  it.each(Object.keys(schemaOf) as FixtureName[])('parse the %s fixture', (name) => {
    const result = schemaOf[name].safeParse(fixture(name));
    expect(result.error).toBeUndefined();
    expect(result.success).toBe(true);
  });

  it('keep fields a newer Coder adds', () => {
    const body = { ...fixture('workspace'), shared_with: [], task_id: null };
    body.latest_build.has_ai_task = false;
    const parsed = WorkspaceSchema.parse(body);
    expect(parsed).toMatchObject({ shared_with: [], task_id: null, latest_build: { has_ai_task: false } });
  });

  it('refuse a workspace without the fields the runbook needs', () => {
    const body = fixture('workspace');
    delete body.latest_build.job.status;
    const result = WorkspaceSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['latest_build', 'job', 'status']);
  });

  it('refuse a job status Coder does not have', () => {
    const body = fixture('workspace-build');
    body.job.status = 'exploded';
    expect(WorkspaceBuildSchema.safeParse(body).success).toBe(false);
  });

  it('read a Go nil slice (null) as an empty list', () => {
    const build = fixture('workspace-build');
    build.resources = null;
    expect(WorkspaceBuildSchema.parse(build).resources).toEqual([]);
    expect(WorkspacesResponseSchema.parse({ workspaces: null, count: 0 }).workspaces).toEqual([]);
    expect(BuildLogsSchema.parse(null)).toEqual([]);
  });

  it('accept a job whose optional timestamps Go omitted or sent as null', () => {
    const build = fixture('workspace-build');
    delete build.job.completed_at;
    build.job.started_at = null;
    build.job.status = 'pending';
    expect(WorkspaceBuildSchema.parse(build).job).toMatchObject({ status: 'pending', started_at: null });
  });

  it('accept a template version not attached to a template', () => {
    const version = fixture('template-version');
    delete version.template_id;
    expect(TemplateVersionSchema.parse(version).template_id).toBeUndefined();
  });
});
