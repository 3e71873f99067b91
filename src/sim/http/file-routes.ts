import { ApiError, notFound } from '../api-error';
import { MAX_FILE_BYTES } from '../deployment';
import { ok, uuidParam, type Route } from './route';

export const fileRoutes: Route[] = [
  {
    method: 'POST',
    path: '/files',
    async handle(ctx) {
      const contentType = (ctx.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (contentType !== 'application/x-tar') {
        throw new ApiError(400, `Unsupported content type header "${contentType ?? ''}".`, 'Upload the template as a tar archive with Content-Type: application/x-tar.');
      }
      const declared = Number(ctx.headers['content-length'] ?? '0');
      if (declared > MAX_FILE_BYTES) throw new ApiError(413, 'File too large.', `The limit is ${MAX_FILE_BYTES} bytes (100 MiB).`);
      const bytes = await ctx.body(MAX_FILE_BYTES);
      const { file, created } = ctx.deployment.uploadFile(ctx.actor, bytes, contentType);
      return ok({ hash: file.id }, created ? 201 : 200);
    },
  },
  {
    method: 'GET',
    path: '/files/{fileID}',
    handle(ctx) {
      const file = ctx.deployment.files.get(uuidParam(ctx, 'fileID', 'file'));
      if (!file || !ctx.deployment.canReadFile(ctx.actor, file)) throw notFound();
      return { status: 200, bytes: file.bytes, contentType: file.mimetype };
    },
  },
];
